/**
 * Items as they are inserted, unsorted, in growing flat arrays: what a storage holds before it
 * sorts them. Every item is checked on the way in.
 */
import { type PackedItems, sortItems } from './sort.js';
import { splitTimestamp } from './u64.js';

export class ItemBuffer {
  count = 0;
  #ids = new Uint8Array(32 * 16);
  #hi = new Uint32Array(16);
  #lo = new Uint32Array(16);
  readonly #halves = new Uint32Array(2);

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
    this.#ids = new Uint8Array(32 * 16);
    this.#hi = new Uint32Array(16);
    this.#lo = new Uint32Array(16);
    return items;
  }
}
