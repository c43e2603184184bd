import type { BodyCache, VersionKey } from './adapter.js';

/**
 * A body cache that drops the body used longest ago once it holds `capacity` bodies.
 * A Map keeps insertion order, so re-inserting on every hit makes its first key the oldest.
 */
export class LruBodyCache implements BodyCache {
  readonly #bodies = new Map<VersionKey, Uint8Array>();
  /**
   * An iterator kept over the map, so each eviction starts where the last one stopped: a new
   * `keys()` each time would step over every entry deleted before it (V8 keeps them as holes
   * until it rehashes), some 17 µs a body at 16,384. A live Map iterator sees entries set
   * after it, and a body moved to the end on a hit is met again there, so what it gives next
   * is always the body used longest ago.
   */
  #oldest: Iterator<VersionKey> | undefined;

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

  peek(id: VersionKey): Uint8Array | undefined {
    return this.#bodies.get(id);
  }

  set(id: VersionKey, body: Uint8Array): void {
    this.#bodies.delete(id);
    this.#bodies.set(id, body);
    if (this.#bodies.size > this.capacity) {
      let next = this.#oldest?.next();
      if (!next || next.done) {
        // Done stays done even as entries come: begin again.
        this.#oldest = this.#bodies.keys();
        next = this.#oldest.next();
      }
      if (!next.done) this.#bodies.delete(next.value);
    }
  }

  delete(id: VersionKey): void {
    this.#bodies.delete(id);
  }
}
