/**
 * A list of blocks read as one sorted list of items, for a Negentropy session. Beside the
 * blocks it keeps, per block, the index of its first item and the sum of every block before
 * it, so reaching an item is a binary search over blocks, and a prefix sum is the sum before its
 * block plus the nearer of the block's running sums, give or take at most CHUNK / 2 ids.
 */

import { type Block, CHUNK, totalAt } from './block.js';
import { type Bound, itemBelow } from './bound.js';
import type { SyncItems } from './items.js';
import { addLimbs, fingerprintOfDifference, subtractLimbs } from './limbs.js';
import type { Writer } from './writer.js';

const EMPTY = new Uint8Array(0);
const upper = new Uint32Array(8);
const lower = new Uint32Array(8);

export class BlockItems implements SyncItems {
  readonly n: number;
  readonly blocks: readonly Block[];
  /** `starts[k]` = the index of block k's first item; `starts[blocks.length]` = n. */
  readonly #starts: Uint32Array;
  /** `before[8k .. 8k+8)` = the sum of every id in blocks `[0, k)`. */
  readonly #before: Uint32Array;
  /** The block last reached: sessions read near where they read last. */
  #last = 0;
  readonly #lastPrefix = new Uint32Array(8);
  #lastPrefixAt = -1;

  /**
   * Over `blocks`, of which those before `from` are the same, at the same places, as in
   * `previous`: their starts and sums are copied from it, the rest added up.
   */
  constructor(blocks: readonly Block[], from = 0, previous?: BlockItems) {
    const nb = blocks.length;
    const starts = new Uint32Array(nb + 1);
    const before = new Uint32Array(8 * (nb + 1));
    const kept = previous ? Math.min(from, nb) : 0;
    if (previous) {
      starts.set(previous.#starts.subarray(0, kept + 1));
      before.set(previous.#before.subarray(0, 8 * (kept + 1)));
    }
    for (let k = kept; k < nb; k++) {
      const block = blocks[k]!;
      starts[k + 1] = starts[k]! + block.n;
      before.copyWithin(8 * (k + 1), 8 * k, 8 * k + 8);
      addLimbs(before, 8 * (k + 1), block.sums, totalAt(block));
    }
    this.blocks = blocks;
    this.n = starts[nb]!;
    this.#starts = starts;
    this.#before = before;
  }

  /** The block holding item `i`, `0 <= i < n`. */
  #locate(i: number): number {
    const starts = this.#starts;
    const last = this.#last;
    if (starts[last]! <= i && i < starts[last + 1]!) return last;
    let a = 0;
    let b = this.blocks.length - 1;
    while (a < b) {
      const mid = (a + b + 1) >>> 1;
      if (starts[mid]! <= i) a = mid;
      else b = mid - 1;
    }
    this.#last = a;
    return a;
  }

  item(i: number, into: Bound): void {
    const k = this.#locate(i);
    const block = this.blocks[k]!;
    const at = i - this.#starts[k]!;
    into.set(block.hi[at]!, block.lo[at]!, block.ids, at * 32, 32);
  }

  lowerBound(from: number, bound: Bound): number {
    if (from >= this.n) return this.n;
    const blocks = this.blocks;
    // The first block whose last item is at or above the bound, from the one holding `from`.
    let a = this.#locate(from);
    let b = blocks.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      const block = blocks[mid]!;
      const last = block.n - 1;
      if (itemBelow(block.hi[last]!, block.lo[last]!, block.ids, last * 32, bound)) a = mid + 1;
      else b = mid;
    }
    if (a === blocks.length) return this.n;
    const block = blocks[a]!;
    let x = 0;
    let y = block.n;
    while (x < y) {
      const mid = (x + y) >>> 1;
      if (itemBelow(block.hi[mid]!, block.lo[mid]!, block.ids, mid * 32, bound)) x = mid + 1;
      else y = mid;
    }
    return Math.max(from, this.#starts[a]! + x);
  }

  /** Writes into `acc` the sum of the ids of items `[0, i)`. */
  #prefix(i: number, acc: Uint32Array): void {
    // Ranges side by side share an end: the last prefix is often asked for again.
    if (i === this.#lastPrefixAt) {
      acc.set(this.#lastPrefix);
      return;
    }
    const before = this.#before;
    if (i >= this.n) {
      const b = 8 * this.blocks.length;
      for (let j = 0; j < 8; j++) acc[j] = before[b + j]!;
      return;
    }
    const k = this.#locate(i);
    const block = this.blocks[k]!;
    const at = i - this.#starts[k]!;
    // From the nearer stored sum: add the ids after the one below, or take away those up to
    // the one above.
    const below = ((at / CHUNK) | 0) * CHUNK;
    const above = Math.min(below + CHUNK, block.n);
    const b = 8 * k;
    for (let j = 0; j < 8; j++) acc[j] = before[b + j]!;
    const limbs = block.limbs;
    // The stored sum at `below` is entry below / CHUNK; at `above` (a CHUNK on, or the block's
    // end), the next one.
    const entry = below / CHUNK;
    if (above - at < at - below) {
      addLimbs(acc, 0, block.sums, 8 * (entry + 1));
      for (let t = at; t < above; t++) subtractLimbs(acc, 0, limbs, 8 * t);
    } else {
      addLimbs(acc, 0, block.sums, 8 * entry);
      for (let t = below; t < at; t++) addLimbs(acc, 0, limbs, 8 * t);
    }
    this.#lastPrefix.set(acc);
    this.#lastPrefixAt = i;
  }

  fingerprint(from: number, to: number): Uint8Array {
    this.#prefix(from, lower);
    this.#prefix(to, upper);
    return fingerprintOfDifference(upper, 0, lower, 0, to - from);
  }

  writeIds(out: Writer, from: number, to: number): void {
    if (from >= to) return;
    const starts = this.#starts;
    for (let k = this.#locate(from); from < to; k++) {
      const end = Math.min(to, starts[k + 1]!);
      const start = starts[k]!;
      out.copy(this.blocks[k]!.ids, (from - start) * 32, (end - start) * 32);
      from = end;
    }
  }

  packedIds(from: number, to: number): Uint8Array {
    if (from >= to) return EMPTY;
    const starts = this.#starts;
    let k = this.#locate(from);
    if (to <= starts[k + 1]!) {
      const start = starts[k]!;
      return this.blocks[k]!.ids.subarray((from - start) * 32, (to - start) * 32);
    }
    const out = new Uint8Array((to - from) * 32);
    for (let i = from; i < to; k++) {
      const end = Math.min(to, starts[k + 1]!);
      const start = starts[k]!;
      out.set(this.blocks[k]!.ids.subarray((i - start) * 32, (end - start) * 32), (i - from) * 32);
      i = end;
    }
    return out;
  }
}
