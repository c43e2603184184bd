/**
 * The tree of a batch signature (spec 05 §3.6): RFC 9162 §2.1's Merkle tree over a batch's
 * versions, SHA-256 with `0x00` before a leaf and `0x01` before two children, so a leaf can't
 * pass for a node. A writer signs the root once; each version carries the path from its leaf.
 */
import { equalBytes } from './bytes.js';
import { sha256 } from './primitives.js';

/** Where a hash's input is put together: one buffer, kept, since each hash reads it at once. */
let input = new Uint8Array(512);

/** `input` with room for `length` bytes. */
function inputOf(length: number): Uint8Array {
  if (input.length < length) input = new Uint8Array(Math.max(length, 2 * input.length));
  return input;
}

/**
 * The leaf of a version: SHA-256(0x00 ‖ what its signature would cover), given whole or as
 * `context ‖ signed`.
 */
export function leafHash(signed: Uint8Array, context?: Uint8Array): Uint8Array {
  const at = 1 + (context?.length ?? 0);
  const bytes = inputOf(at + signed.length);
  bytes[0] = 0;
  if (context) bytes.set(context, 1);
  bytes.set(signed, at);
  return sha256(bytes.subarray(0, at + signed.length));
}

/** SHA-256(0x01 ‖ left ‖ right). */
function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const length = 1 + left.length + right.length;
  const bytes = inputOf(length);
  bytes[0] = 1;
  bytes.set(left, 1);
  bytes.set(right, 1 + left.length);
  return sha256(bytes.subarray(0, length));
}

/** The largest power of two below `n` (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The root over `leaves` (at least one), and each leaf's path up to it, lowest sibling first. */
export function merkleTree(leaves: readonly Uint8Array[]): {
  root: Uint8Array;
  paths: Uint8Array[][];
} {
  const paths = leaves.map((): Uint8Array[] => []);
  const build = (lo: number, hi: number): Uint8Array => {
    if (hi - lo === 1) return leaves[lo]!;
    const mid = lo + split(hi - lo);
    const left = build(lo, mid);
    const right = build(mid, hi);
    for (let i = lo; i < mid; i++) paths[i]!.push(right);
    for (let i = mid; i < hi; i++) paths[i]!.push(left);
    return nodeHash(left, right);
  };
  return { root: build(0, leaves.length), paths };
}

/**
 * The root that leaf `index` of a tree of `size` leaves reaches through `path` (RFC 9162
 * §2.1.3.2), or `undefined` when the path is not one of that tree's.
 */
export function rootOf(
  leaf: Uint8Array,
  index: number,
  size: number,
  path: readonly Uint8Array[],
): Uint8Array | undefined {
  if (index >= size) return undefined;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return undefined;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else r = nodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : undefined;
}

/** A version's leaf in a batch, with the place and path its proof claims. */
export interface BatchLeaf {
  leaf: Uint8Array;
  index: number;
  path: readonly Uint8Array[];
}

/**
 * For each of `leaves`, of one batch of `size`, the root {@link rootOf} gives, with the tree
 * over them built once: about 2 hashes a leaf rather than one per level. A batch's versions
 * come together, the whole batch or, where a page of a pull ends inside it, a run of it; a part
 * of the tree none of them is under is taken from the path of the nearest one that names it. A
 * leaf whose path is the tree's own for its index reaches the tree's root; any other path is
 * followed alone, exactly as `rootOf` does, so a path changed anywhere (above a shared node
 * too) never passes for the tree's.
 */
export function rootsOf(leaves: readonly BatchLeaf[], size: number): Array<Uint8Array | undefined> {
  const alone = () => leaves.map((l) => rootOf(l.leaf, l.index, size, l.path));
  if (leaves.length < 2) return alone();
  const sorted = [...leaves].sort((a, b) => a.index - b.index);
  for (let i = 0; i < sorted.length; i++) {
    const { index } = sorted[i]!;
    // An index twice or past the batch: no one tree has them all.
    if (!(index < size) || (i > 0 && index === sorted[i - 1]!.index)) return alone();
  }
  const tree = partialTree(sorted, size);
  if (!tree) return alone();
  return leaves.map((l) =>
    samePath(l.path, tree.paths.get(l.index)!) ? tree.root : rootOf(l.leaf, l.index, size, l.path),
  );
}

/**
 * The tree of a batch of `size` over `leaves` (sorted by index, each once): its root, and each
 * leaf's path in it. Where a subtree holds none of them, its hash is the one the path of the
 * first leaf beside it names at that level; `undefined` when that path is too short.
 */
function partialTree(
  leaves: readonly BatchLeaf[],
  size: number,
): { root: Uint8Array; paths: Map<number, Uint8Array[]> } | undefined {
  const paths = new Map(leaves.map((l): [number, Uint8Array[]] => [l.index, []]));
  // A leaf's path so far is as long as the levels built under it: the next is this level's.
  const named = (l: BatchLeaf) => l.path[paths.get(l.index)!.length];
  // The hash of leaves [lo, hi) of the tree, `inside` the ones given among them (at least one).
  const build = (lo: number, hi: number, inside: readonly BatchLeaf[]): Uint8Array | undefined => {
    if (hi - lo === 1) return inside[0]!.leaf;
    const mid = lo + split(hi - lo);
    let cut = 0;
    while (cut < inside.length && inside[cut]!.index < mid) cut++;
    const before = inside.slice(0, cut);
    const after = inside.slice(cut);
    // `null` for a side with none of them, `undefined` where a path under it was too short.
    const l = before.length > 0 ? build(lo, mid, before) : null;
    const r = after.length > 0 ? build(mid, hi, after) : null;
    if (l === undefined || r === undefined) return undefined;
    // A side with none of them: named by the other side's first leaf, once its levels are built.
    const left = l ?? named(after[0]!);
    const right = r ?? named(before[0]!);
    if (!left || !right) return undefined;
    for (const leaf of before) paths.get(leaf.index)!.push(right);
    for (const leaf of after) paths.get(leaf.index)!.push(left);
    return nodeHash(left, right);
  };
  const root = build(0, size, leaves);
  return root && { root, paths };
}

const samePath = (a: readonly Uint8Array[], b: readonly Uint8Array[]) =>
  a.length === b.length && a.every((sibling, i) => equalBytes(sibling, b[i]!));
