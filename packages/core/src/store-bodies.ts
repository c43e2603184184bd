/**
 * A store's version bodies: from its body cache (its own, or one its factory's stores share),
 * else read from the adapter, checked against their ids and cached.
 */
import type { BodyCache, StorageAdapter } from './adapter.js';
import { MincaError } from './errors.js';
import { hashIdHex } from './ids.js';
import { readVersions } from './store-io.js';
import { decodeVersion, type Version } from './version.js';

export class VersionBodies {
  readonly #adapter: StorageAdapter;
  readonly #cache: BodyCache;

  constructor(adapter: StorageAdapter, cache: BodyCache) {
    this.#adapter = adapter;
    this.#cache = cache;
  }

  /** The bodies of `ids`, decoded, in order; `undefined` where missing. Trusts what it stored. */
  async versions(ids: readonly string[]): Promise<Array<Version | undefined>> {
    const out: Array<Version | undefined> = ids.map(() => undefined);
    const missing: number[] = [];
    ids.forEach((id, i) => {
      const bytes = this.#cache.get(id);
      if (bytes) out[i] = decodeVersion(bytes, { trusted: true });
      else missing.push(i);
    });
    if (missing.length > 0) {
      const read = await readVersions(
        this.#adapter,
        missing.map((i) => ids[i]!),
      );
      read.forEach((bytes, j) => {
        if (!bytes) return;
        const i = missing[j]!;
        const version = decodeVersion(bytes, { trusted: true });
        if (version.id !== ids[i])
          throw new MincaError('corrupt', `version ${ids[i]} does not hash to its id`);
        this.#cache.set(version.id, bytes);
        out[i] = version;
      });
    }
    return out;
  }

  /** Bodies the cache holds at most, when it says. */
  get capacity(): number | undefined {
    return this.#cache.capacity;
  }

  /**
   * The encoded bytes of `ids`, in order, `undefined` where missing, without decoding them: for
   * copying versions elsewhere (mirrors). Bytes read from the adapter are checked against their
   * id, and cached unless `keep` is false (when the cache's own are not counted as used either).
   */
  async bytes(ids: readonly string[], keep = true): Promise<Array<Uint8Array | undefined>> {
    // Read past the cache, a body it holds is not a use that should keep it longer.
    const cache = this.#cache;
    const out: Array<Uint8Array | undefined> = ids.map((id) =>
      !keep && cache.peek ? cache.peek(id) : cache.get(id),
    );
    const missing = ids.flatMap((_, i) => (out[i] ? [] : [i]));
    if (missing.length === 0) return out;
    const read = await readVersions(
      this.#adapter,
      missing.map((i) => ids[i]!),
    );
    read.forEach((bytes, j) => {
      if (!bytes) return;
      const id = ids[missing[j]!]!;
      if (hashIdHex(bytes) !== id)
        throw new MincaError('corrupt', `version ${id} does not hash to its id`);
      if (keep) this.#cache.set(id, bytes);
      out[missing[j]!] = bytes;
    });
    return out;
  }

  /** A body just written. */
  set(id: string, bytes: Uint8Array): void {
    this.#cache.set(id, bytes);
  }
}
