/**
 * A stable sorting permutation by several uint32 keys: an LSD radix sort on 16-bit digits,
 * O(n) and allocation-free per item, where a comparator sort of a million items takes seconds.
 */

const DIGITS = 0x1_0000;

/** The order of items `0..count-1` by `keys`, least significant key first; ties keep index order. */
export function radixOrder(count: number, keys: readonly Uint32Array[]): Uint32Array {
  let order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  let spare = new Uint32Array(count);
  // The current key in the current order, moved along with it: reads stay sequential.
  let current = new Uint32Array(count);
  let spareCurrent = new Uint32Array(count);
  const starts = new Uint32Array(DIGITS);
  for (const key of keys) {
    for (let i = 0; i < count; i++) current[i] = key[order[i]!]!;
    for (const shift of [0, 16]) {
      starts.fill(0);
      for (let i = 0; i < count; i++) starts[(current[i]! >>> shift) & 0xffff]!++;
      // A digit that is the same for every item orders nothing: skip the pass.
      if (count === 0 || starts[(current[0]! >>> shift) & 0xffff] === count) continue;
      let sum = 0;
      for (let d = 0; d < DIGITS; d++) {
        const c = starts[d]!;
        starts[d] = sum;
        sum += c;
      }
      for (let i = 0; i < count; i++) {
        const k = current[i]!;
        const at = starts[(k >>> shift) & 0xffff]!++;
        spare[at] = order[i]!;
        spareCurrent[at] = k;
      }
      [order, spare] = [spare, order];
      [current, spareCurrent] = [spareCurrent, current];
    }
  }
  return order;
}
