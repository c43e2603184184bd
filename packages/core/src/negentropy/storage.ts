/**
 * The items one side reconciles, sorted once and then read-only (Negentropy §1). Sealing packs
 * them into flat typed arrays, so a Negentropy over the storage costs nothing to create and
 * finds any range's fingerprint in O(1): ids in one Uint8Array, timestamps as uint32 halves,
 * and prefix sums of the ids (mod 2^256, eight uint32 limbs per entry), which subtract.
 */
import { MincaError } from '../errors.js';
import type { Bound } from './bound.js';
import { fingerprintOfSum } from './fingerprint.js';
import { radixOrder } from './sort.js';
import { splitTimestamp } from './u64.js';

const TWO32 = 0x1_0000_0000;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The sealed arrays, shared with the algorithm in this folder. */
export interface SealedItems {
  readonly n: number;
  /** Ids in sorted order, 32 bytes each. */
  readonly ids: Uint8Array;
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
  /** `sums[8i .. 8i+8)` = little-endian limbs of the sum of ids `[0, i)`. */
  readonly sums: Uint32Array;
}

const sealedOf = new WeakMap<NegentropyStorage, SealedItems>();

/** The sealed arrays of `storage`; a TypeError when it is not sealed. */
export function sealedItems(storage: NegentropyStorage): SealedItems {
  const items = storage instanceof NegentropyStorage ? sealedOf.get(storage) : undefined;
  if (!items) throw new TypeError('negentropy: expected a sealed NegentropyStorage');
  return items;
}

/**
 * A set of Negentropy items (timestamp, 32-byte id). Insert every item, then {@link seal}; a
 * sealed storage is immutable and can back any number of `Negentropy` instances at once.
 */
export class NegentropyStorage {
  #n = 0;
  #ids = new Uint8Array(32 * 64);
  #hi = new Uint32Array(64);
  #lo = new Uint32Array(64);
  #sealed = false;
  readonly #halves = new Uint32Array(2);

  /**
   * Adds an item. `timestamp` is a safe non-negative integer or a bigint up to 2^64-2 (else a
   * RangeError); `id` is 32 bytes (else a TypeError or RangeError). Throws
   * `MincaError('closed')` after {@link seal}. An exact duplicate is dropped when sealing.
   */
  insert(timestamp: number | bigint, id: Uint8Array): void {
    if (this.#sealed) throw new MincaError('closed', 'negentropy: storage is sealed');
    if (!(id instanceof Uint8Array)) throw new TypeError('id: expected a Uint8Array');
    if (id.length !== 32) throw new RangeError(`id: expected 32 bytes, got ${id.length}`);
    splitTimestamp(timestamp, this.#halves);
    const n = this.#n;
    if (n === this.#hi.length) this.#grow();
    this.#hi[n] = this.#halves[0]!;
    this.#lo[n] = this.#halves[1]!;
    this.#ids.set(id, n * 32);
    this.#n = n + 1;
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

  /**
   * Sorts by (timestamp, id as unsigned bytes), drops exact duplicates and builds the prefix
   * sums. Calling it again does nothing.
   */
  seal(): void {
    if (this.#sealed) return;
    this.#sealed = true;
    const items = sortAndPack(this.#n, this.#ids, this.#hi, this.#lo);
    sealedOf.set(this, items);
    this.#n = items.n;
    // The unsorted arrays are no longer needed.
    this.#ids = new Uint8Array(0);
    this.#hi = new Uint32Array(0);
    this.#lo = new Uint32Array(0);
  }

  /** The number of items (after sealing, without duplicates). */
  get size(): number {
    return this.#n;
  }
}

function sortAndPack(
  count: number,
  ids: Uint8Array,
  hi: Uint32Array,
  lo: Uint32Array,
): SealedItems {
  // The first four id bytes as a big-endian word settle almost every tie on timestamp.
  const head = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const o = i * 32;
    head[i] = ((ids[o]! << 24) | (ids[o + 1]! << 16) | (ids[o + 2]! << 8) | ids[o + 3]!) >>> 0;
  }
  const order = radixOrder(count, [head, lo, hi]);

  // Gather in that order; ids are copied as 32-bit words, which keeps their bytes whatever the
  // platform's endianness.
  const words = new Uint32Array(ids.buffer, ids.byteOffset, count * 8);
  const outIds = new Uint8Array(count * 32);
  const outWords = new Uint32Array(outIds.buffer);
  const outHi = new Uint32Array(count);
  const outLo = new Uint32Array(count);
  for (let k = 0; k < count; k++) {
    const i = order[k]!;
    outHi[k] = hi[i]!;
    outLo[k] = lo[i]!;
    const from = i * 8;
    const to = k * 8;
    for (let w = 0; w < 8; w++) outWords[to + w] = words[from + w]!;
  }

  // Items equal on timestamp and first id word are rare and adjacent: order each such run by
  // the rest of the id. Scanning the gathered arrays keeps this pass sequential.
  let runStart = 0;
  for (let k = 1; k <= count; k++) {
    const tied =
      k < count &&
      outHi[k] === outHi[k - 1] &&
      outLo[k] === outLo[k - 1] &&
      outWords[k * 8] === outWords[k * 8 - 8];
    if (tied) continue;
    if (k - runStart > 1) sortRun(outIds, runStart, k);
    runStart = k;
  }

  // Drop exact duplicates, which now sit next to each other.
  let n = 0;
  for (let k = 0; k < count; k++) {
    if (n > 0 && outHi[n - 1] === outHi[k] && outLo[n - 1] === outLo[k]) {
      let w = 0;
      while (w < 8 && outWords[n * 8 - 8 + w] === outWords[k * 8 + w]) w++;
      if (w === 8) continue;
    }
    if (n !== k) {
      outHi[n] = outHi[k]!;
      outLo[n] = outLo[k]!;
      outWords.copyWithin(n * 8, k * 8, k * 8 + 8);
    }
    n++;
  }
  const packedIds = n === count ? outIds : outIds.slice(0, n * 32);
  return {
    n,
    ids: packedIds,
    hi: n === count ? outHi : outHi.slice(0, n),
    lo: n === count ? outLo : outLo.slice(0, n),
    sums: prefixSums(packedIds, n),
  };
}

/** Sorts the ids of items `[from, to)` in place by their bytes after the first four. */
function sortRun(ids: Uint8Array, from: number, to: number): void {
  const run = ids.slice(from * 32, to * 32);
  const idx = Array.from({ length: to - from }, (_, r) => r);
  idx.sort((a, b) => compareIdTails(run, a * 32, b * 32));
  for (let r = 0; r < idx.length; r++)
    ids.set(run.subarray(idx[r]! * 32, idx[r]! * 32 + 32), (from + r) * 32);
}

function compareIdTails(ids: Uint8Array, a: number, b: number): number {
  for (let i = 4; i < 32; i++) {
    const d = ids[a + i]! - ids[b + i]!;
    if (d !== 0) return d;
  }
  return 0;
}

function prefixSums(ids: Uint8Array, n: number): Uint32Array {
  const sums = new Uint32Array(8 * (n + 1));
  // Read ids as little-endian uint32 limbs; a Uint32Array view is that on every common CPU.
  const limbs = LITTLE_ENDIAN
    ? new Uint32Array(ids.buffer, ids.byteOffset, n * 8)
    : littleEndianLimbs(ids, n);
  // The running sum lives in eight locals (a carry chain, unrolled): several times faster
  // than reading the previous entry back from the array.
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let a4 = 0;
  let a5 = 0;
  let a6 = 0;
  let a7 = 0;
  for (let i = 0; i < n; i++) {
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
    sums[s + 8] = a0;
    sums[s + 9] = a1;
    sums[s + 10] = a2;
    sums[s + 11] = a3;
    sums[s + 12] = a4;
    sums[s + 13] = a5;
    sums[s + 14] = a6;
    sums[s + 15] = a7;
  }
  return sums;
}

function littleEndianLimbs(ids: Uint8Array, n: number): Uint32Array {
  const limbs = new Uint32Array(n * 8);
  for (let j = 0; j < n * 8; j++) {
    const o = j * 4;
    limbs[j] = (ids[o]! | (ids[o + 1]! << 8) | (ids[o + 2]! << 16) | (ids[o + 3]! << 24)) >>> 0;
  }
  return limbs;
}

/** The first index in `[from, n)` whose item is at or above `bound`, or `n`. */
export function lowerBound(items: SealedItems, from: number, bound: Bound): number {
  const { ids, hi, lo } = items;
  const { src, off, len } = bound;
  let a = from;
  let b = items.n;
  while (a < b) {
    const mid = (a + b) >>> 1;
    let below: boolean;
    if (hi[mid] !== bound.hi) below = hi[mid]! < bound.hi;
    else if (lo[mid] !== bound.lo) below = lo[mid]! < bound.lo;
    else {
      // Against the zero-padded prefix: equal on the prefix means at or above.
      below = false;
      const o = mid * 32;
      for (let i = 0; i < len; i++) {
        const x = ids[o + i]!;
        const y = src[off + i]!;
        if (x !== y) {
          below = x < y;
          break;
        }
      }
    }
    if (below) a = mid + 1;
    else b = mid;
  }
  return a;
}

const sumScratch = new Uint8Array(32);

/** The fingerprint of items `[from, to)`, from two prefix sums. */
export function rangeFingerprint(items: SealedItems, from: number, to: number): Uint8Array {
  const sums = items.sums;
  const a = from * 8;
  const b = to * 8;
  let borrow = 0;
  for (let k = 0; k < 8; k++) {
    let v = sums[b + k]! - sums[a + k]! - borrow;
    borrow = v < 0 ? 1 : 0;
    if (v < 0) v += TWO32;
    sumScratch[k * 4] = v & 0xff;
    sumScratch[k * 4 + 1] = (v >>> 8) & 0xff;
    sumScratch[k * 4 + 2] = (v >>> 16) & 0xff;
    sumScratch[k * 4 + 3] = v >>> 24;
  }
  return fingerprintOfSum(sumScratch, to - from);
}
