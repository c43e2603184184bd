/**
 * Set difference between a local span of ids and a received IdList, for the client's have/need
 * (Negentropy §6.3). Only membership counts: order, duplicates and ids outside the span are all
 * tolerated, since a peer may send anything. Cost is O((n + m) log(n + m)) whatever the input.
 */

/** Below this many pairs a plain double loop beats sorting. */
const NESTED_MAX_PAIRS = 4096;

const scratchMine = new Uint32Array(NESTED_MAX_PAIRS);
const scratchTheirs = new Uint32Array(NESTED_MAX_PAIRS);
const scratchMatched = new Uint8Array(NESTED_MAX_PAIRS);

/** The first four bytes of `count` consecutive ids from `bytes[at..]`, big-endian. */
function wordsOf(bytes: Uint8Array, at: number, count: number, into: Uint32Array): Uint32Array {
  for (let k = 0; k < count; k++) {
    const o = at + k * 32;
    into[k] =
      ((bytes[o]! << 24) | (bytes[o + 1]! << 16) | (bytes[o + 2]! << 8) | bytes[o + 3]!) >>> 0;
  }
  return into;
}

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
 * `count` ids at `msg[at..]`, in the span's order, and to `need` each received id not in the
 * span. The span's order is the set's (timestamp, then id): what is sent in that order reaches
 * the peer as it was written, a batch signature's versions together (spec 05 §3.6) and a
 * store's index appended to rather than written all over.
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
  if (count === 0) {
    // The peer has none of the span (a new device): all of it, nothing to compare.
    for (let o = from * 32; o < to * 32; o += 32) have.push(local.slice(o, o + 32));
    return;
  }
  if (n <= NESTED_MAX_PAIRS && count <= NESTED_MAX_PAIRS && n * count <= NESTED_MAX_PAIRS) {
    // Compare first words as numbers; only a match on them needs the full 32 bytes.
    const mine = wordsOf(local, from * 32, n, scratchMine);
    const theirs = wordsOf(msg, at, count, scratchTheirs);
    const matched = scratchMatched.fill(0, 0, count);
    for (let i = 0; i < n; i++) {
      const w = mine[i];
      const o = (from + i) * 32;
      let found = false;
      for (let j = 0; j < count; j++) {
        if (theirs[j] === w && equalIds(local, o, msg, at + j * 32)) {
          found = true;
          matched[j] = 1;
        }
      }
      if (!found) have.push(local.slice(o, o + 32));
    }
    for (let j = 0; j < count; j++) {
      if (matched[j] === 0) need.push(msg.slice(at + j * 32, at + j * 32 + 32));
    }
    return;
  }
  // Sort offsets of both sides by id bytes and merge, noting the span's ids the peer has too.
  const mine = new Uint32Array(n);
  for (let i = 0; i < n; i++) mine[i] = (from + i) * 32;
  mine.sort((x, y) => compareIds(local, x, local, y));
  const theirs = new Uint32Array(count);
  for (let j = 0; j < count; j++) theirs[j] = at + j * 32;
  theirs.sort((x, y) => compareIds(msg, x, msg, y));
  const shared = new Uint8Array(n);
  let i = 0;
  let j = 0;
  while (i < n || j < count) {
    const c = i === n ? 1 : j === count ? -1 : compareIds(local, mine[i]!, msg, theirs[j]!);
    if (c < 0) {
      i++;
    } else if (c > 0) {
      need.push(msg.slice(theirs[j]!, theirs[j]! + 32));
      j++;
    } else {
      // Present on both sides: step past every copy of this id on each.
      const o = mine[i]!;
      while (i < n && equalIds(local, mine[i]!, local, o)) shared[mine[i++]! / 32 - from] = 1;
      while (j < count && equalIds(msg, theirs[j]!, local, o)) j++;
    }
  }
  for (let k = 0; k < n; k++) {
    const o = (from + k) * 32;
    if (shared[k] === 0) have.push(local.slice(o, o + 32));
  }
}
