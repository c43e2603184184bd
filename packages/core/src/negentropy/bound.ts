/**
 * A bound (Negentropy §3): a timestamp and an id prefix of 0..32 bytes, compared with items as
 * if padded with zero bytes. The prefix is a view (`src`, `off`, `len`) into a message or into
 * the storage's packed ids, so reading and writing bounds never copies or allocates.
 */
import { INF_HALF } from './u64.js';

const EMPTY = new Uint8Array(0);

export class Bound {
  hi = 0;
  lo = 0;
  src: Uint8Array = EMPTY;
  off = 0;
  len = 0;

  set(hi: number, lo: number, src: Uint8Array, off: number, len: number): this {
    this.hi = hi;
    this.lo = lo;
    this.src = src;
    this.off = off;
    this.len = len;
    return this;
  }

  copy(other: Bound): this {
    return this.set(other.hi, other.lo, other.src, other.off, other.len);
  }

  /** Resets to (0, empty prefix), where the first range starts. */
  zero(): this {
    return this.set(0, 0, EMPTY, 0, 0);
  }

  /** Sets to the infinity bound (INF, empty prefix). */
  infinity(): this {
    return this.set(INF_HALF, INF_HALF, EMPTY, 0, 0);
  }
}

/** Orders two bounds: timestamps, then prefixes padded with zeros (so `ab` equals `ab00`). */
export function compareBounds(a: Bound, b: Bound): number {
  if (a.hi !== b.hi) return a.hi - b.hi;
  if (a.lo !== b.lo) return a.lo - b.lo;
  const n = Math.max(a.len, b.len);
  for (let i = 0; i < n; i++) {
    const x = i < a.len ? a.src[a.off + i]! : 0;
    const y = i < b.len ? b.src[b.off + i]! : 0;
    if (x !== y) return x - y;
  }
  return 0;
}

/** Whether the item (hi, lo, `ids[o..o+32)`) sorts below `bound` (against its padded prefix). */
export function itemBelow(
  hi: number,
  lo: number,
  ids: Uint8Array,
  o: number,
  bound: Bound,
): boolean {
  if (hi !== bound.hi) return hi < bound.hi;
  if (lo !== bound.lo) return lo < bound.lo;
  // Equal on the prefix means at or above: the prefix is padded with zeros.
  const { src, off, len } = bound;
  for (let i = 0; i < len; i++) {
    const x = ids[o + i]!;
    const y = src[off + i]!;
    if (x !== y) return x < y;
  }
  return false;
}
