/**
 * Set difference between a local span of ids and a received IdList, for the client's have/need
 * (Negentropy §6.3). Only membership counts: order, duplicates and ids outside the span are all
 * tolerated, since a peer may send anything. Cost is O((n + m) log(n + m)) whatever the input.
 */

/** Below this many pairs a plain double loop beats sorting. */
const NESTED_MAX_PAIRS = 4096;

function equalIds(a: Uint8Array, ao: number, b: Uint8Array, bo: number): boolean {
  for (let i = 0; i < 32; i++) if (a[ao + i] !== b[bo + i]) return false;
  return true;
}

function compareIds(a: Uint8Array, ao: number, b: Uint8Array, bo: number): number {
  for (let i = 0; i < 32; i++) {
    const d = a[ao + i]! - b[bo + i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Pushes to `have` each id of `local[from, to)` (items, 32 bytes each) that is not among the
 * `count` ids at `msg[at..]`, and to `need` each received id not in the span.
 */
export function diffIds(
  local: Uint8Array,
  from: number,
  to: number,
  msg: Uint8Array,
  at: number,
  count: number,
  have: Uint8Array[],
  need: Uint8Array[],
): void {
  const n = to - from;
  if (n * count <= NESTED_MAX_PAIRS) {
    for (let i = from; i < to; i++) {
      let found = false;
      for (let j = 0; j < count && !found; j++) found = equalIds(local, i * 32, msg, at + j * 32);
      if (!found) have.push(local.slice(i * 32, i * 32 + 32));
    }
    for (let j = 0; j < count; j++) {
      let found = false;
      for (let i = from; i < to && !found; i++) found = equalIds(local, i * 32, msg, at + j * 32);
      if (!found) need.push(msg.slice(at + j * 32, at + j * 32 + 32));
    }
    return;
  }
  // Sort offsets of both sides by id bytes and merge.
  const mine = new Uint32Array(n);
  for (let i = 0; i < n; i++) mine[i] = (from + i) * 32;
  mine.sort((x, y) => compareIds(local, x, local, y));
  const theirs = new Uint32Array(count);
  for (let j = 0; j < count; j++) theirs[j] = at + j * 32;
  theirs.sort((x, y) => compareIds(msg, x, msg, y));
  let i = 0;
  let j = 0;
  while (i < n || j < count) {
    const c = i === n ? 1 : j === count ? -1 : compareIds(local, mine[i]!, msg, theirs[j]!);
    if (c < 0) {
      have.push(local.slice(mine[i]!, mine[i]! + 32));
      i++;
    } else if (c > 0) {
      need.push(msg.slice(theirs[j]!, theirs[j]! + 32));
      j++;
    } else {
      // Present on both sides: step past every copy of this id on each.
      const o = mine[i]!;
      while (i < n && equalIds(local, mine[i]!, local, o)) i++;
      while (j < count && equalIds(msg, theirs[j]!, local, o)) j++;
    }
  }
}
