/**
 * What a store keeps in memory of one collection (spec 05 §5.4): its Negentropy set in blocks,
 * with the count and sum of its ids, and — built on first use — a table telling by id alone
 * whether a version is held. A write merges its items into the blocks they land in; those
 * blocks, and only those, are the pages the same write puts in the store (set-pages.ts), so
 * the set in memory and the pages stored are the same blocks.
 */
import { fromHexInto, hexWord, toHex } from './bytes.js';
import { IdTable } from './id-table.js';
import { type Block, mergeInto, totalAt } from './negentropy/block.js';
import { BlockItems } from './negentropy/block-items.js';
import { addLimbs } from './negentropy/limbs.js';
import { NegentropySnapshot } from './negentropy/set.js';
import { compareItems, type PackedItems } from './negentropy/sort.js';
import { encodePage, pageKey } from './set-pages.js';

/** An id being looked up ({@link CollectionSet.hasId}): one lookup at a time, start to end. */
const LOOKUP = new Uint8Array(32);

/** Items per block: a write rewrites one page of at most this many (20 KiB). */
export const STORE_BLOCK_SIZE = 512;

/** What a write does to a collection's set: computed first, applied once the write landed. */
export interface SetChange {
  readonly set: CollectionSet;
  readonly blocks: readonly Block[];
  readonly from: number;
  readonly added: PackedItems;
  /** The count and sum of ids after it. */
  readonly count: number;
  readonly sum: Uint32Array;
  /** Pages to put and keys to delete, in the same write as the versions. */
  readonly puts: ReadonlyArray<readonly [string, Uint8Array]>;
  readonly deletes: readonly string[];
}

const TWO32 = 0x1_0000_0000;

export class CollectionSet {
  #blocks: readonly Block[];
  /** The blocks as of the last snapshot, and the first block changed since. */
  #items: BlockItems | undefined;
  #snapshot: NegentropySnapshot | undefined;
  #dirtyFrom = 0;
  #ids: IdTable | undefined;
  #count: number;
  /** The sum of every id, as eight little-endian limbs. */
  readonly #sum = new Uint32Array(8);

  constructor(
    readonly name: string,
    blocks: readonly Block[] = [],
  ) {
    this.#blocks = blocks;
    let count = 0;
    for (const block of blocks) {
      count += block.n;
      addLimbs(this.#sum, 0, block.sums, totalAt(block));
    }
    this.#count = count;
  }

  /** A set of `items` (sorted and distinct, as an ItemBuffer takes them), cut into blocks. */
  static of(name: string, items: PackedItems): CollectionSet {
    const merged = mergeInto([], items, STORE_BLOCK_SIZE);
    return new CollectionSet(name, merged?.blocks ?? []);
  }

  get count(): number {
    return this.#count;
  }

  get blocks(): readonly Block[] {
    return this.#blocks;
  }

  /** The sum of every id, 32 bytes little-endian. */
  sum(): Uint8Array {
    return sumBytes(this.#sum);
  }

  /** The latest timestamp held up to `atMost`, 0 when none. */
  latest(atMost = Number.MAX_SAFE_INTEGER): number {
    const at = (block: Block, i: number) => block.hi[i]! * TWO32 + block.lo[i]!;
    const blocks = this.#blocks;
    // The first block starting after `atMost`; the one before it holds the answer.
    let a = 0;
    let b = blocks.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (at(blocks[mid]!, 0) <= atMost) a = mid + 1;
      else b = mid;
    }
    const block = blocks[a - 1];
    if (!block) return 0;
    let x = 0;
    let y = block.n;
    while (x < y) {
      const mid = (x + y) >>> 1;
      if (at(block, mid) <= atMost) x = mid + 1;
      else y = mid;
    }
    return at(block, x - 1);
  }

  /** The set now, for a Negentropy session: it never changes, whatever lands later. */
  snapshot(): NegentropySnapshot {
    if (!this.#snapshot) {
      this.#items = new BlockItems(this.#blocks, this.#dirtyFrom, this.#items);
      this.#snapshot = NegentropySnapshot.of(this.#items);
    }
    return this.#snapshot;
  }

  /** Whether item (timestamp halves, `id[at..at+32)`) is held. */
  #has(hi: number, lo: number, id: Uint8Array, at: number): boolean {
    const blocks = this.#blocks;
    let a = 0;
    let b = blocks.length;
    // The first block whose last item is at or above the item.
    while (a < b) {
      const mid = (a + b) >>> 1;
      const block = blocks[mid]!;
      const l = block.n - 1;
      if (compareItems(block.hi[l]!, block.lo[l]!, block.ids, 32 * l, hi, lo, id, at) < 0)
        a = mid + 1;
      else b = mid;
    }
    const block = blocks[a];
    if (!block) return false;
    let x = 0;
    let y = block.n;
    while (x < y) {
      const mid = (x + y) >>> 1;
      const c = compareItems(block.hi[mid]!, block.lo[mid]!, block.ids, 32 * mid, hi, lo, id, at);
      if (c === 0) return true;
      if (c < 0) x = mid + 1;
      else y = mid;
    }
    return false;
  }

  /** Whether version `id` (64 lowercase hex) is held; anything else is not. */
  hasId(id: string): boolean {
    if (this.#count === 0 || id.length !== 64) return false;
    // The intake asks this of every version, several times, and a version coming in is mostly
    // not held: the table is searched by the id's first 16 digits, and the whole id decoded
    // (into scratch bytes) only for a candidate.
    const a = hexWord(id, 0);
    const b = hexWord(id, 8);
    if (a < 0 || b < 0) return false;
    this.#lookup = id;
    return this.#table().candidates(a, b, this.#hasLookup);
  }

  /** The id {@link hasId} is looking up. */
  #lookup = '';

  /** Whether the set holds the id being looked up at timestamp (hi, lo). */
  readonly #hasLookup = (hi: number, lo: number): boolean => {
    try {
      fromHexInto(this.#lookup, LOOKUP);
    } catch {
      return false; // not hex past its first 16 digits: no version's id
    }
    return this.#has(hi, lo, LOOKUP, 0);
  };

  #table(): IdTable {
    if (!this.#ids) {
      const table = new IdTable();
      for (const block of this.#blocks)
        for (let i = 0; i < block.n; i++) table.add(block.ids, 32 * i, block.hi[i]!, block.lo[i]!);
      this.#ids = table;
    }
    return this.#ids;
  }

  /** Every item, in the set's order: timestamp and id as hex. */
  *items(): Generator<[number, string]> {
    for (const block of this.#blocks)
      for (let i = 0; i < block.n; i++)
        yield [block.hi[i]! * TWO32 + block.lo[i]!, toHex(block.ids.subarray(32 * i, 32 * i + 32))];
  }

  /**
   * What adding `items` (sorted, distinct, none held) does: the blocks after, and the pages to
   * write. Nothing changes until {@link apply}.
   */
  plan(items: PackedItems): SetChange | undefined {
    const merged = mergeInto(this.#blocks, items, STORE_BLOCK_SIZE);
    if (!merged) return undefined;
    // Blocks before `from` are the same in both lists: only those after it are compared, so a
    // write landing in the last block (a node's own, dated after all it holds) costs no more in
    // a set of a million items than in one of a thousand.
    const before = this.#blocks.slice(merged.from);
    const after = merged.blocks.slice(merged.from);
    const kept = new Set(before);
    const puts: Array<readonly [string, Uint8Array]> = [];
    const put = new Set<string>();
    for (const block of after) {
      if (kept.has(block)) continue;
      const key = pageKey(this.name, block);
      puts.push([key, encodePage(block)]);
      put.add(key);
    }
    const now = new Set(after);
    const deletes = before
      .filter((block) => !now.has(block))
      .map((block) => pageKey(this.name, block))
      .filter((key) => !put.has(key));
    const sum = this.#sum.slice();
    const limbs = new Uint32Array(8);
    for (let i = 0; i < items.n; i++) {
      for (let k = 0; k < 8; k++) limbs[k] = word(items.ids, 32 * i + 4 * k);
      addLimbs(sum, 0, limbs, 0);
    }
    return {
      set: this,
      blocks: merged.blocks,
      from: merged.from,
      added: items,
      count: this.#count + items.n,
      sum,
      puts,
      deletes,
    };
  }

  /** Takes on a planned change, once its write landed. */
  apply(change: SetChange): void {
    const { added } = change;
    this.#blocks = change.blocks;
    this.#dirtyFrom = this.#snapshot ? change.from : Math.min(this.#dirtyFrom, change.from);
    this.#snapshot = undefined;
    this.#count = change.count;
    this.#sum.set(change.sum);
    if (this.#ids)
      for (let i = 0; i < added.n; i++)
        this.#ids.add(added.ids, 32 * i, added.hi[i]!, added.lo[i]!);
  }
}

/** Four bytes as a little-endian word: one limb of an id. */
function word(bytes: Uint8Array, at: number): number {
  return (
    (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0
  );
}

/** Eight limbs as 32 little-endian bytes. */
export function sumBytes(limbs: Uint32Array): Uint8Array {
  const out = new Uint8Array(32);
  for (let k = 0; k < 8; k++) {
    const limb = limbs[k]!;
    out[4 * k] = limb & 0xff;
    out[4 * k + 1] = (limb >>> 8) & 0xff;
    out[4 * k + 2] = (limb >>> 16) & 0xff;
    out[4 * k + 3] = limb >>> 24;
  }
  return out;
}
