/**
 * Sums of ids mod 2^256 (Negentropy §5) as eight little-endian uint32 limbs, in flat
 * Uint32Arrays: one id, one running sum or one stored prefix is eight consecutive entries.
 * Sums subtract, so the sum of any run is the difference of two prefixes.
 */
import { fingerprintOfSum } from '../id-sum.js';

const TWO32 = 0x1_0000_0000;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The ids `ids[0 .. 32n)` as limbs: a view on every common CPU, a converted copy elsewhere. */
export function limbsOf(ids: Uint8Array, n: number): Uint32Array {
  if (LITTLE_ENDIAN && ids.byteOffset % 4 === 0)
    return new Uint32Array(ids.buffer, ids.byteOffset, n * 8);
  const limbs = new Uint32Array(n * 8);
  for (let j = 0; j < n * 8; j++) {
    const o = j * 4;
    limbs[j] = (ids[o]! | (ids[o + 1]! << 8) | (ids[o + 2]! << 16) | (ids[o + 3]! << 24)) >>> 0;
  }
  return limbs;
}

/** `acc[a..a+8) += src[s..s+8)`, mod 2^256. */
export function addLimbs(acc: Uint32Array, a: number, src: Uint32Array, s: number): void {
  let carry = 0;
  for (let k = 0; k < 8; k++) {
    const v = acc[a + k]! + src[s + k]! + carry;
    acc[a + k] = v >>> 0;
    carry = v > 0xffff_ffff ? 1 : 0;
  }
}

/** `acc[a..a+8) -= src[s..s+8)`, mod 2^256. */
export function subtractLimbs(acc: Uint32Array, a: number, src: Uint32Array, s: number): void {
  let borrow = 0;
  for (let k = 0; k < 8; k++) {
    const v = acc[a + k]! - src[s + k]! - borrow;
    acc[a + k] = v >>> 0;
    borrow = v < 0 ? 1 : 0;
  }
}

/**
 * Running sums of `n` ids given as limbs, one entry every `step` ids: entry c (of
 * `floor(n / step) + 1`, plus one for the total when `step` does not divide `n`) is the sum of
 * the first `min(c * step, n)` ids.
 */
export function prefixSums(
  limbs: Uint32Array,
  n: number,
  step: number,
  /** Sums already made over the same first ids, of at least `from` (a multiple of `step`) of them. */
  prior?: Uint32Array,
  from = 0,
): Uint32Array {
  const entries = Math.ceil(n / step) + 1;
  const sums = new Uint32Array(8 * entries);
  const e0 = 8 * (from / step);
  if (prior && from > 0) sums.set(prior.subarray(0, e0 + 8));
  // The running sum lives in eight locals (a carry chain, unrolled): several times faster
  // than reading the previous entry back from the array.
  let a0 = sums[e0]!;
  let a1 = sums[e0 + 1]!;
  let a2 = sums[e0 + 2]!;
  let a3 = sums[e0 + 3]!;
  let a4 = sums[e0 + 4]!;
  let a5 = sums[e0 + 5]!;
  let a6 = sums[e0 + 6]!;
  let a7 = sums[e0 + 7]!;
  let next = from + step;
  for (let i = from; i < n; i++) {
    const s = i * 8;
    let v = a0 + limbs[s]!;
    a0 = v >>> 0;
    v = a1 + limbs[s + 1]! + (v > 0xffff_ffff ? 1 : 0);
    a1 = v >>> 0;
    v = a2 + limbs[s + 2]! + (v > 0xffff_ffff ? 1 : 0);
    a2 = v >>> 0;
    v = a3 + limbs[s + 3]! + (v > 0xffff_ffff ? 1 : 0);
    a3 = v >>> 0;
    v = a4 + limbs[s + 4]! + (v > 0xffff_ffff ? 1 : 0);
    a4 = v >>> 0;
    v = a5 + limbs[s + 5]! + (v > 0xffff_ffff ? 1 : 0);
    a5 = v >>> 0;
    v = a6 + limbs[s + 6]! + (v > 0xffff_ffff ? 1 : 0);
    a6 = v >>> 0;
    v = a7 + limbs[s + 7]! + (v > 0xffff_ffff ? 1 : 0);
    a7 = v >>> 0;
    if (i + 1 === next || i + 1 === n) {
      const e = 8 * Math.ceil((i + 1) / step);
      next += step;
      sums[e] = a0;
      sums[e + 1] = a1;
      sums[e + 2] = a2;
      sums[e + 3] = a3;
      sums[e + 4] = a4;
      sums[e + 5] = a5;
      sums[e + 6] = a6;
      sums[e + 7] = a7;
    }
  }
  return sums;
}

const sumScratch = new Uint8Array(32);

/** The fingerprint of `count` ids whose sum is `a[ao..ao+8) − b[bo..bo+8)`. */
export function fingerprintOfDifference(
  a: Uint32Array,
  ao: number,
  b: Uint32Array,
  bo: number,
  count: number,
): Uint8Array {
  let borrow = 0;
  for (let k = 0; k < 8; k++) {
    let v = a[ao + k]! - b[bo + k]! - borrow;
    borrow = v < 0 ? 1 : 0;
    if (v < 0) v += TWO32;
    sumScratch[k * 4] = v & 0xff;
    sumScratch[k * 4 + 1] = (v >>> 8) & 0xff;
    sumScratch[k * 4 + 2] = (v >>> 16) & 0xff;
    sumScratch[k * 4 + 3] = v >>> 24;
  }
  return fingerprintOfSum(sumScratch, count);
}
