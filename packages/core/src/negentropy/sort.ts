/**
 * The sorting permutation of items by (hi, lo, head) and then `tie`: an LSD radix sort on
 * 16-bit digits, O(n) and allocation-free per item, where a comparator sort of a million items
 * takes seconds. Runs that tie on all three keys (ids sharing their first four bytes at one
 * timestamp) are rare and short, and are sorted with `tie`.
 */

const DIGITS = 0x1_0000;

export function sortOrder(
  count: number,
  hi: Uint32Array,
  lo: Uint32Array,
  head: Uint32Array,
  tie: (a: number, b: number) => number,
): Uint32Array {
  let order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  let spare = new Uint32Array(count);
  // The current key in the current order, moved along with it: reads stay sequential.
  let keys = new Uint32Array(count);
  let spareKeys = new Uint32Array(count);
  const starts = new Uint32Array(DIGITS);
  // Least significant digit first; each pass is stable, so earlier passes break later ties.
  for (const key of [head, lo, hi]) {
    for (let i = 0; i < count; i++) keys[i] = key[order[i]!]!;
    for (const shift of [0, 16]) {
      starts.fill(0);
      for (let i = 0; i < count; i++) starts[(keys[i]! >>> shift) & 0xffff]!++;
      // A digit that is the same for every item orders nothing: skip the pass.
      if (count === 0 || starts[(keys[0]! >>> shift) & 0xffff] === count) continue;
      let sum = 0;
      for (let d = 0; d < DIGITS; d++) {
        const c = starts[d]!;
        starts[d] = sum;
        sum += c;
      }
      for (let i = 0; i < count; i++) {
        const k = keys[i]!;
        const at = starts[(k >>> shift) & 0xffff]!++;
        spare[at] = order[i]!;
        spareKeys[at] = k;
      }
      [order, spare] = [spare, order];
      [keys, spareKeys] = [spareKeys, keys];
    }
  }
  // Sort each run of items equal on (hi, lo, head) with the full comparison.
  let runStart = 0;
  for (let k = 1; k <= count; k++) {
    if (k < count) {
      const a = order[k - 1]!;
      const b = order[k]!;
      if (hi[a] === hi[b] && lo[a] === lo[b] && head[a] === head[b]) continue;
    }
    if (k - runStart > 1) order.subarray(runStart, k).sort(tie);
    runStart = k;
  }
  return order;
}
