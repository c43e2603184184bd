/**
 * Blocks of a Negentropy set kept sorted (spec 05 §9.7): each block is a run of consecutive
 * items in flat arrays with running sums of its ids, and never changes once made. Adding items
 * makes new blocks for the ones they land in and keeps every other block as it is, so a
 * snapshot holding the old list of blocks is untouched.
 */
import { limbsOf, prefixSums } from './limbs.js';
import { compareItems, type PackedItems } from './sort.js';

/**
 * Writes of fewer items than this, all after the set's last item, are small: a node's puts one
 * after another, or a few made at once. They fill a tail of {@link TAIL_BLOCK_SIZE} items, or
 * make a block of their own, rather than append to a block of the set's size.
 */
export const SMALL_WRITE = 64;

/**
 * Most items small writes append to a block: each such write rewrites the stored page
 * (set-pages.ts) of its block, so that page stays small: 640 bytes, not up to 20 KiB. On SQLite
 * (in the 4 KiB pages of then) a tail of 64 (2.5 KiB) cost a put 7.4 pages of log, 16 costs
 * 5.9: the larger row kept outgrowing its leaf, and the pages that moved dirtied the file's
 * header too.
 */
export const TAIL_BLOCK_SIZE = 16;

/** Items between two stored running sums of a block (2 bytes of sums per item). */
export const CHUNK = 16;

export interface Block {
  readonly n: number;
  /** The items' ids, 32 bytes each, in order. */
  readonly ids: Uint8Array;
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
  /** The ids as eight little-endian limbs each. */
  readonly limbs: Uint32Array;
  /** `sums[8c .. 8c+8)` = the sum of the first `min(c * CHUNK, n)` ids; the last is the total. */
  readonly sums: Uint32Array;
  /** Arrays with room behind the block's items, when it has some (see {@link appendTo}). */
  readonly room?: Room;
}

/**
 * Arrays a block's items are the start of, with room for more: a block made by appending to
 * one whose items end where `used` does writes behind them and views the longer run, so a
 * write adding items after the last ones copies no block. The items a block views never
 * change; `used` says where the next may write (a plan never applied leaves it moved on, and
 * the next append to that block copies instead).
 */
interface Room {
  readonly ids: Uint8Array;
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
  used: number;
}

/** A block over items `[from, to)` of the arrays: views of them, not copies. */
function blockOf(
  ids: Uint8Array,
  hi: Uint32Array,
  lo: Uint32Array,
  from: number,
  to: number,
): Block {
  const n = to - from;
  const own = ids.subarray(from * 32, to * 32);
  const limbs = limbsOf(own, n);
  return {
    n,
    ids: own,
    hi: hi.subarray(from, to),
    lo: lo.subarray(from, to),
    limbs,
    sums: prefixSums(limbs, n, CHUNK),
  };
}

/** A block over whole arrays of sorted, distinct items (a stored page, read back). */
export function blockOfItems(ids: Uint8Array, hi: Uint32Array, lo: Uint32Array): Block {
  return blockOf(ids, hi, lo, 0, hi.length);
}

/** The limb offset of a block's total in its `sums`. */
export function totalAt(block: Block): number {
  return 8 * Math.ceil(block.n / CHUNK);
}

/**
 * Cuts items `[from, to)` into blocks of at most `size` items, as even as they come, and
 * appends them to `out`.
 */
function cut(items: PackedItems, from: number, to: number, size: number, out: Block[]): void {
  const pieces = Math.ceil((to - from) / size);
  const each = Math.floor((to - from) / pieces);
  let extra = (to - from) % pieces;
  for (let start = from; start < to; ) {
    const end = start + each + (extra-- > 0 ? 1 : 0);
    out.push(blockOf(items.ids, items.hi, items.lo, start, end));
    start = end;
  }
}

/** Items packed as a block's or a write's are: timestamp halves and ids, side by side. */
type Packed = Pick<PackedItems, 'ids' | 'hi' | 'lo'>;

/** Orders item `i` of `a` against item `j` of `b`, as {@link compareItems} does. */
function compareAt(a: Packed, i: number, b: Packed, j: number): number {
  return compareItems(a.hi[i]!, a.lo[i]!, a.ids, i * 32, b.hi[j]!, b.lo[j]!, b.ids, j * 32);
}

/** The first index in `[from, items.n)` whose item is at or above the first of `block`. */
function firstReaching(items: PackedItems, from: number, block: Block): number {
  let a = from;
  let b = items.n;
  while (a < b) {
    const mid = (a + b) >>> 1;
    const c = compareAt(items, mid, block, 0);
    if (c < 0) a = mid + 1;
    else b = mid;
  }
  return a;
}

/** The first index in `[from, block.n)` whose item is at or above item `t` of `items`. */
function positionIn(block: Block, from: number, items: PackedItems, t: number): number {
  let a = from;
  let b = block.n;
  while (a < b) {
    const mid = (a + b) >>> 1;
    const c = compareAt(block, mid, items, t);
    if (c < 0) a = mid + 1;
    else b = mid;
  }
  return a;
}

/**
 * `block` with items `[from, to)` of `add` after it (each after its last item, `m` in all,
 * at most `size`): written into the block's room when its items end where the room's used
 * part does, else into new room for `size` items.
 */
function appendTo(block: Block, add: PackedItems, from: number, to: number, size: number): Block {
  const n = block.n;
  const m = n + to - from;
  let room = block.room;
  if (!room || room.used !== n || room.hi.length < m) {
    const cap = Math.max(size, m);
    room = {
      ids: new Uint8Array(cap * 32),
      hi: new Uint32Array(cap),
      lo: new Uint32Array(cap),
      used: n,
    };
    room.ids.set(block.ids.subarray(0, n * 32));
    room.hi.set(block.hi.subarray(0, n));
    room.lo.set(block.lo.subarray(0, n));
  }
  room.ids.set(add.ids.subarray(from * 32, to * 32), n * 32);
  room.hi.set(add.hi.subarray(from, to), n);
  room.lo.set(add.lo.subarray(from, to), n);
  room.used = m;
  const ids = room.ids.subarray(0, m * 32);
  const limbs = limbsOf(ids, m);
  // The running sums of the whole chunks before the new items stay as they were.
  const keep = n - (n % CHUNK);
  return {
    n: m,
    ids,
    hi: room.hi.subarray(0, m),
    lo: room.lo.subarray(0, m),
    limbs,
    sums: prefixSums(limbs, m, CHUNK, block.sums, keep),
    room,
  };
}

/**
 * Merges items `[from, to)` of `add` into `block` and appends the result, cut to `size`, to
 * `out`. Items the block holds already are skipped; when all are, it appends nothing and
 * returns -1. Else it returns the index in `out` of the first block it changed or added, which
 * may be the last one `out` had (a full tail joined to it).
 */
function mergeBlock(
  block: Block,
  add: PackedItems,
  from: number,
  to: number,
  size: number,
  out: Block[],
): number {
  const cap = block.n + to - from;
  const last = block.n - 1;
  const after = compareAt(block, last, add, from) < 0;
  // Items all after the block's last (a node's own writes, dated after all it holds).
  if (after && to - from < SMALL_WRITE && size > TAIL_BLOCK_SIZE) {
    // A few: appended while the block stays within a tail's size, else a block of their own
    // after it, so each write rewrites a small page. A block small writes made then joins the
    // block before it while the two fit in one: puts one after another leave blocks of the
    // set's size, not thousands of a tail's, each of which every write's list would carry.
    if (cap <= TAIL_BLOCK_SIZE) {
      out.push(appendTo(block, add, from, to, TAIL_BLOCK_SIZE));
      return out.length - 1;
    }
    const fresh = blockOf(add.ids, add.hi, add.lo, from, to);
    const prev = out[out.length - 1];
    if (prev && block.n < SMALL_WRITE && prev.n + block.n <= size) {
      // The tail's items after the block before it: in that block's room when it has some.
      out[out.length - 1] = appendTo(prev, block, 0, block.n, size);
      out.push(fresh);
      return out.length - 2;
    }
    out.push(block, fresh);
    return out.length - 2;
  }
  if (after && cap <= size) {
    out.push(appendTo(block, add, from, to, size));
    return out.length - 1;
  }
  const ids = new Uint8Array(cap * 32);
  const hi = new Uint32Array(cap);
  const lo = new Uint32Array(cap);
  let m = 0;
  let at = 0;
  const copyBlock = (end: number) => {
    ids.set(block.ids.subarray(at * 32, end * 32), m * 32);
    hi.set(block.hi.subarray(at, end), m);
    lo.set(block.lo.subarray(at, end), m);
    m += end - at;
    at = end;
  };
  for (let t = from; t < to; t++) {
    copyBlock(positionIn(block, at, add, t));
    const held = at < block.n && compareAt(block, at, add, t) === 0;
    if (held) continue;
    ids.set(add.ids.subarray(t * 32, t * 32 + 32), m * 32);
    hi[m] = add.hi[t]!;
    lo[m] = add.lo[t]!;
    m++;
  }
  copyBlock(block.n);
  if (m === block.n) return -1;
  const first = out.length;
  cut({ n: m, ids, hi, lo }, 0, m, size, out);
  return first;
}

/**
 * The index of the block the item `t` of `items` lands in: the last whose first item is at or
 * below it, or the first block for an item below them all.
 */
function landingBlock(blocks: readonly Block[], items: PackedItems, t: number): number {
  let a = 1;
  let b = blocks.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (compareAt(blocks[mid]!, 0, items, t) <= 0) a = mid + 1;
    else b = mid;
  }
  return a - 1;
}

/**
 * The blocks of `blocks` with the sorted, distinct items of `add` merged in: untouched blocks
 * are the same objects, at the same places up to `from`, the index of the first new block.
 * `undefined` when `add` brings nothing new. Only the blocks the items land in are looked at
 * (the first found by bisection), so a write after the last item costs the same in a set of
 * 16,000 blocks as in one of a few, but for copying the list.
 */
export function mergeInto(
  blocks: readonly Block[],
  add: PackedItems,
  size: number,
): { blocks: Block[]; from: number } | undefined {
  if (add.n === 0) return undefined;
  if (blocks.length === 0) {
    const out: Block[] = [];
    cut(add, 0, add.n, size, out);
    return { blocks: out, from: 0 };
  }
  let k = landingBlock(blocks, add, 0);
  const out = blocks.slice(0, k);
  let from = -1;
  // Items below the next block's first item land in this one (below the first block's first
  // item, in the first).
  for (let t = 0; t < add.n; k++) {
    const block = blocks[k]!;
    const end = k === blocks.length - 1 ? add.n : firstReaching(add, t, blocks[k + 1]!);
    const changed = end > t ? mergeBlock(block, add, t, end, size, out) : -1;
    if (changed < 0) out.push(block);
    else if (from < 0 || changed < from) from = changed;
    t = end;
  }
  if (from < 0) return undefined;
  for (; k < blocks.length; k++) out.push(blocks[k]!);
  return { blocks: out, from };
}
