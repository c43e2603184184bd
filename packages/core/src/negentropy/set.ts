/**
 * A Negentropy set that stays sorted as items arrive (spec 05 §9.7), for a collection that keeps
 * growing: items go into blocks of at most `blockSize`, each with the running sums of its ids.
 * Inserts wait in a buffer until the next {@link NegentropySet.snapshot}, which sorts them and
 * makes new blocks only where they land; every other block, and every earlier snapshot, stays
 * as it was. So a write into a set of a million items costs one block, not a re-sort, and a
 * session keeps reading the snapshot it started with.
 */

import { mergeInto } from './block.js';
import { BlockItems } from './block-items.js';
import { ItemBuffer } from './item-buffer.js';

/** Items per block unless told: a new block copies about 40 KiB, and a million items make ~1,000. */
export const DEFAULT_BLOCK_SIZE = 1024;
const MAX_BLOCK_SIZE = 1 << 20;

const snapshotOf = new WeakMap<NegentropySnapshot, BlockItems>();

/** The items of `snapshot`; a TypeError when it is not one a {@link NegentropySet} made. */
export function snapshotItems(snapshot: NegentropySnapshot): BlockItems {
  const items = snapshotOf.get(snapshot);
  if (!items) throw new TypeError('negentropy: expected a snapshot of a NegentropySet');
  return items;
}

/**
 * The items of a {@link NegentropySet} at one moment: immutable, so it can back any number of
 * `Negentropy` instances at once, for as long as they run, whatever is inserted meanwhile.
 */
export class NegentropySnapshot {
  /** The number of items, without duplicates. */
  readonly size: number;

  private constructor(items: BlockItems) {
    this.size = items.n;
    snapshotOf.set(this, items);
  }

  /** @internal Made only by {@link NegentropySet}. */
  static of(items: BlockItems): NegentropySnapshot {
    return new NegentropySnapshot(items);
  }
}

export interface NegentropySetOptions {
  /** Items per block, 2 to 2^20: 1,024 unless told. */
  blockSize?: number;
}

/**
 * A set of Negentropy items (timestamp, 32-byte id) that can be inserted into at any time.
 * Reconcile over a {@link snapshot}: `new Negentropy(set.snapshot())`.
 */
export class NegentropySet {
  readonly #blockSize: number;
  readonly #waiting = new ItemBuffer();
  #items = new BlockItems([]);
  #snapshot = NegentropySnapshot.of(this.#items);

  constructor(options: NegentropySetOptions = {}) {
    const size = options.blockSize ?? DEFAULT_BLOCK_SIZE;
    if (!Number.isSafeInteger(size) || size < 2 || size > MAX_BLOCK_SIZE)
      throw new RangeError(`blockSize: expected an integer from 2 to ${MAX_BLOCK_SIZE}`);
    this.#blockSize = size;
  }

  /**
   * Adds an item, seen from the next {@link snapshot} on. `timestamp` is a safe non-negative
   * integer or a bigint up to 2^64-2 (else a RangeError); `id` is 32 bytes (else a TypeError or
   * RangeError). An exact duplicate of an item held is dropped.
   */
  insert(timestamp: number | bigint, id: Uint8Array): void {
    this.#waiting.push(timestamp, id);
  }

  /** As {@link insert}, the id given as 64 lowercase hex digits (else a TypeError). */
  insertHex(timestamp: number | bigint, id: string): void {
    this.#waiting.pushHex(timestamp, id);
  }

  /**
   * The items inserted so far. Unchanged until the next insert, the same object is returned;
   * after one, only the blocks the new items land in are made anew.
   */
  snapshot(): NegentropySnapshot {
    if (this.#waiting.count > 0) {
      const merged = mergeInto(this.#items.blocks, this.#waiting.take(), this.#blockSize);
      if (merged) {
        this.#items = new BlockItems(merged.blocks, merged.from, this.#items);
        this.#snapshot = NegentropySnapshot.of(this.#items);
      }
    }
    return this.#snapshot;
  }

  /** The number of items, without duplicates. */
  get size(): number {
    return this.snapshot().size;
  }
}
