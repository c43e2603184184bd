import type { BodyCache, VersionKey } from './adapter.js';

/** Bytes of bodies a {@link LruBodyCache} holds at most unless told otherwise. */
export const DEFAULT_BODY_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * A body cache that drops the bodies used longest ago once it holds more than `capacity`
 * bodies or more than `maxBytes` bytes of them: bodies run up to 256 KiB, so a count alone
 * would let a few thousand large records (or a peer sending them) hold a gigabyte.
 * A Map keeps insertion order, so re-inserting on every hit makes its first key the oldest.
 */
export class LruBodyCache implements BodyCache {
  readonly #bodies = new Map<VersionKey, Uint8Array>();
  #bytes = 0;
  /**
   * An iterator kept over the map, so each eviction starts where the last one stopped: a new
   * `keys()` each time would step over every entry deleted before it (V8 keeps them as holes
   * until it rehashes), some 17 µs a body at 16,384. A live Map iterator sees entries set
   * after it, and a body moved to the end on a hit is met again there, so what it gives next
   * is always the body used longest ago.
   */
  #oldest: Iterator<VersionKey> | undefined;

  constructor(
    readonly capacity: number,
    readonly maxBytes: number = DEFAULT_BODY_CACHE_BYTES,
  ) {
    if (!(capacity >= 1)) throw new RangeError('capacity must be at least 1');
    if (!(maxBytes >= 0)) throw new RangeError('maxBytes must be at least 0');
  }

  get size(): number {
    return this.#bodies.size;
  }

  /** Bytes of the bodies held. */
  get bytes(): number {
    return this.#bytes;
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
    this.delete(id);
    // A body over the whole budget would only push every other out, and then itself.
    if (body.length > this.maxBytes) return;
    const kept = ownBytes(body);
    this.#bodies.set(id, kept);
    this.#bytes += kept.length;
    while (this.#bodies.size > this.capacity || this.#bytes > this.maxBytes) {
      let next = this.#oldest?.next();
      if (!next || next.done) {
        // Done stays done even as entries come: begin again.
        this.#oldest = this.#bodies.keys();
        next = this.#oldest.next();
      }
      if (next.done) break;
      this.delete(next.value);
    }
  }

  delete(id: VersionKey): void {
    const body = this.#bodies.get(id);
    if (body === undefined) return;
    this.#bodies.delete(id);
    this.#bytes -= body.length;
  }
}

/**
 * `body` in a buffer of its own when it is a view of one at least twice its size (a message
 * of versions received, a page read in bulk): kept, the view would hold the whole buffer in
 * memory, and the cache would count a fraction of what it holds.
 */
function ownBytes(body: Uint8Array): Uint8Array {
  return body.buffer.byteLength >= 2 * body.length ? body.slice() : body;
}
