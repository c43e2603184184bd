/**
 * Items as they are inserted, unsorted, in growing flat arrays: what a storage holds before it
 * sorts them. Every item is checked on the way in.
 */
import { type PackedItems, sortItems } from './sort.js';
import { splitTimestamp } from './u64.js';

const BAD = 0xff;
/** The value of each lowercase hex digit by char code, BAD for anything else. */
const HEX_VALUE = new Uint8Array(128).fill(BAD);
for (let d = 0; d < 16; d++) HEX_VALUE['0123456789abcdef'.charCodeAt(d)] = d;

export class ItemBuffer {
  count = 0;
  #ids: Uint8Array;
  #hi: Uint32Array;
  #lo: Uint32Array;
  readonly #halves = new Uint32Array(2);

  /**
   * `room`: the items expected, where the caller knows (a commit of a few hundred grew its
   * arrays nine times). Room for one by default: typed arrays of up to 64 bytes live on
   * the JS heap, larger ones cost an allocation of their own, and a put adds one item.
   */
  constructor(room = 1) {
    const n = Math.max(1, Math.floor(room) || 1);
    this.#ids = new Uint8Array(32 * n);
    this.#hi = new Uint32Array(n);
    this.#lo = new Uint32Array(n);
  }

  /**
   * Adds an item. `timestamp` is a safe non-negative integer or a bigint up to 2^64-2 (else a
   * RangeError); `id` is 32 bytes (else a TypeError or RangeError).
   */
  push(timestamp: number | bigint, id: Uint8Array): void {
    if (!(id instanceof Uint8Array)) throw new TypeError('id: expected a Uint8Array');
    if (id.length !== 32) throw new RangeError(`id: expected 32 bytes, got ${id.length}`);
    splitTimestamp(timestamp, this.#halves);
    const n = this.count;
    if (n === this.#hi.length) this.#grow();
    this.#hi[n] = this.#halves[0]!;
    this.#lo[n] = this.#halves[1]!;
    this.#ids.set(id, n * 32);
    this.count = n + 1;
  }

  /** As {@link push}, the id given as 64 lowercase hex digits (else a TypeError). */
  pushHex(timestamp: number | bigint, hex: string): void {
    if (typeof hex !== 'string' || hex.length !== 64)
      throw new TypeError('id: expected 64 lowercase hex digits');
    splitTimestamp(timestamp, this.#halves);
    const n = this.count;
    if (n === this.#hi.length) this.#grow();
    const ids = this.#ids;
    const at = n * 32;
    for (let i = 0; i < 32; i++) {
      const h = HEX_VALUE[hex.charCodeAt(2 * i)] ?? BAD;
      const l = HEX_VALUE[hex.charCodeAt(2 * i + 1)] ?? BAD;
      if (h === BAD || l === BAD) throw new TypeError('id: expected 64 lowercase hex digits');
      ids[at + i] = (h << 4) | l;
    }
    this.#hi[n] = this.#halves[0]!;
    this.#lo[n] = this.#halves[1]!;
    this.count = n + 1;
  }

  #grow(): void {
    const cap = this.#hi.length * 2;
    const ids = new Uint8Array(cap * 32);
    ids.set(this.#ids);
    this.#ids = ids;
    const hi = new Uint32Array(cap);
    hi.set(this.#hi);
    this.#hi = hi;
    const lo = new Uint32Array(cap);
    lo.set(this.#lo);
    this.#lo = lo;
  }

  /** The items sorted and without exact duplicates; the buffer is emptied. */
  take(): PackedItems {
    const items = sortItems(this.count, this.#ids, this.#hi, this.#lo);
    this.count = 0;
    this.#ids = new Uint8Array(32);
    this.#hi = new Uint32Array(1);
    this.#lo = new Uint32Array(1);
    return items;
  }
}
