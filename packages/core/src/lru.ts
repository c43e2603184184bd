import type { BodyCache, VersionKey } from './adapter.js';

/**
 * A body cache that drops the body used longest ago once it holds `capacity` bodies.
 * A Map keeps insertion order, so re-inserting on every hit makes its first key the oldest.
 */
export class LruBodyCache implements BodyCache {
  readonly #bodies = new Map<VersionKey, Uint8Array>();

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('capacity must be at least 1');
  }

  get size(): number {
    return this.#bodies.size;
  }

  get(id: VersionKey): Uint8Array | undefined {
    const body = this.#bodies.get(id);
    if (body !== undefined) {
      this.#bodies.delete(id);
      this.#bodies.set(id, body);
    }
    return body;
  }

  set(id: VersionKey, body: Uint8Array): void {
    this.#bodies.delete(id);
    this.#bodies.set(id, body);
    if (this.#bodies.size > this.capacity) {
      this.#bodies.delete(this.#bodies.keys().next().value!);
    }
  }

  delete(id: VersionKey): void {
    this.#bodies.delete(id);
  }
}
