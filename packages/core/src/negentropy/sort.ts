/**
 * Orders items (Negentropy §1: by timestamp, then id as unsigned bytes). The permutation comes
 * from an LSD radix sort, O(n) and allocation-free per item, where a comparator sort of a
 * million items takes seconds; a few items are sorted by comparing them.
 */

/**
 * Below this many items the radix passes take 8-bit digits, above it 16-bit ones. Each pass
 * walks every bucket twice, so 65,536 buckets cost a few hundred microseconds whatever the
 * count: sorting a commit's few hundred items took 0.5 ms, most of it clearing and summing
 * buckets, and 0.1 ms with 256. Measured, twice the passes over 256 buckets cost less up to
 * about 8,000 items.
 */
const WIDE_DIGITS_FROM = 1 << 13;

/** The order of items `0..count-1` by `keys`, least significant key first; ties keep index order. */
export function radixOrder(count: number, keys: readonly Uint32Array[]): Uint32Array {
  const bits = count < WIDE_DIGITS_FROM ? 8 : 16;
  const mask = (1 << bits) - 1;
  let order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  let spare = new Uint32Array(count);
  // The current key in the current order, moved along with it: reads stay sequential.
  let current = new Uint32Array(count);
  let spareCurrent = new Uint32Array(count);
  const starts = new Uint32Array(mask + 1);
  for (const key of keys) {
    for (let i = 0; i < count; i++) current[i] = key[order[i]!]!;
    for (let shift = 0; shift < 32; shift += bits) {
      starts.fill(0);
      for (let i = 0; i < count; i++) starts[(current[i]! >>> shift) & mask]!++;
      // A digit that is the same for every item orders nothing: skip the pass.
      if (count === 0 || starts[(current[0]! >>> shift) & mask] === count) continue;
      let sum = 0;
      for (let d = 0; d <= mask; d++) {
        const c = starts[d]!;
        starts[d] = sum;
        sum += c;
      }
      for (let i = 0; i < count; i++) {
        const k = current[i]!;
        const at = starts[(k >>> shift) & mask]!++;
        spare[at] = order[i]!;
        spareCurrent[at] = k;
      }
      [order, spare] = [spare, order];
      [current, spareCurrent] = [spareCurrent, current];
    }
  }
  return order;
}

/** Items in flat arrays: ids 32 bytes each, timestamps as uint32 halves. */
export interface PackedItems {
  readonly n: number;
  readonly ids: Uint8Array;
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
}

/** Below this many items a comparator sort beats the radix passes' fixed cost. */
const COMPARE_BELOW = 256;

/**
 * The first `count` items of the arrays, sorted and without exact duplicates, in new arrays
 * (the inputs are left as they were).
 */
export function sortItems(
  count: number,
  ids: Uint8Array,
  hi: Uint32Array,
  lo: Uint32Array,
): PackedItems {
  // One item (a put's) is in order already.
  if (count === 1) return { n: 1, ids: ids.slice(0, 32), hi: hi.slice(0, 1), lo: lo.slice(0, 1) };
  // The first four id bytes as a big-endian word settle almost every tie on timestamp.
  const head = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const o = i * 32;
    head[i] = ((ids[o]! << 24) | (ids[o + 1]! << 16) | (ids[o + 2]! << 8) | ids[o + 3]!) >>> 0;
  }
  const order =
    count < COMPARE_BELOW
      ? Uint32Array.from({ length: count }, (_, i) => i).sort(
          (a, b) => hi[a]! - hi[b]! || lo[a]! - lo[b]! || head[a]! - head[b]!,
        )
      : radixOrder(count, [head, lo, hi]);

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
  if (n === count) return { n, ids: outIds, hi: outHi, lo: outLo };
  return { n, ids: outIds.slice(0, n * 32), hi: outHi.slice(0, n), lo: outLo.slice(0, n) };
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

/** Orders two items: timestamp halves, then id bytes. */
export function compareItems(
  aHi: number,
  aLo: number,
  aIds: Uint8Array,
  ao: number,
  bHi: number,
  bLo: number,
  bIds: Uint8Array,
  bo: number,
): number {
  if (aHi !== bHi) return aHi - bHi;
  if (aLo !== bLo) return aLo - bLo;
  for (let i = 0; i < 32; i++) {
    const d = aIds[ao + i]! - bIds[bo + i]!;
    if (d !== 0) return d;
  }
  return 0;
}
