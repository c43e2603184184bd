/**
 * The items one side reconciles, sorted once and then read-only (Negentropy §1). Sealing packs
 * them into flat typed arrays, so a Negentropy over the storage costs nothing to create and
 * finds any range's fingerprint in O(1): ids in one Uint8Array, timestamps as uint32 halves,
 * and prefix sums of the ids (mod 2^256, eight uint32 limbs per entry), which subtract. For a
 * set that keeps changing, see `NegentropySet`.
 */
import { MincaError } from '../errors.js';
import { type Bound, itemBelow } from './bound.js';
import { ItemBuffer } from './item-buffer.js';
import type { SyncItems } from './items.js';
import { fingerprintOfDifference, limbsOf, prefixSums } from './limbs.js';
import type { Writer } from './writer.js';

/** The sealed arrays, shared with the algorithm in this folder. */
export class SealedItems implements SyncItems {
  readonly n: number;
  /** Ids in sorted order, 32 bytes each. */
  readonly ids: Uint8Array;
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
  /** `sums[8i .. 8i+8)` = little-endian limbs of the sum of ids `[0, i)`. */
  readonly sums: Uint32Array;

  constructor(n: number, ids: Uint8Array, hi: Uint32Array, lo: Uint32Array) {
    this.n = n;
    this.ids = ids;
    this.hi = hi;
    this.lo = lo;
    this.sums = prefixSums(limbsOf(ids, n), n, 1);
  }

  item(i: number, into: Bound): void {
    into.set(this.hi[i]!, this.lo[i]!, this.ids, i * 32, 32);
  }

  lowerBound(from: number, bound: Bound): number {
    return lowerBound(this, from, bound);
  }

  fingerprint(from: number, to: number): Uint8Array {
    return rangeFingerprint(this, from, to);
  }

  writeIds(out: Writer, from: number, to: number): void {
    out.copy(this.ids, from * 32, to * 32);
  }

  packedIds(from: number, to: number): Uint8Array {
    return this.ids.subarray(from * 32, to * 32);
  }
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
  #buffer: ItemBuffer | undefined = new ItemBuffer();
  #n = 0;

  /**
   * Adds an item. `timestamp` is a safe non-negative integer or a bigint up to 2^64-2 (else a
   * RangeError); `id` is 32 bytes (else a TypeError or RangeError). Throws
   * `MincaError('closed')` after {@link seal}. An exact duplicate is dropped when sealing.
   */
  insert(timestamp: number | bigint, id: Uint8Array): void {
    if (!this.#buffer) throw new MincaError('closed', 'negentropy: storage is sealed');
    this.#buffer.push(timestamp, id);
    this.#n = this.#buffer.count;
  }

  /**
   * Sorts by (timestamp, id as unsigned bytes), drops exact duplicates and builds the prefix
   * sums. Calling it again does nothing.
   */
  seal(): void {
    if (!this.#buffer) return;
    const { n, ids, hi, lo } = this.#buffer.take();
    // The unsorted arrays are no longer needed.
    this.#buffer = undefined;
    sealedOf.set(this, new SealedItems(n, ids, hi, lo));
    this.#n = n;
  }

  /** The number of items (after sealing, without duplicates). */
  get size(): number {
    return this.#n;
  }
}

/** The first index in `[from, n)` whose item is at or above `bound`, or `n`. */
export function lowerBound(items: SealedItems, from: number, bound: Bound): number {
  const { ids, hi, lo } = items;
  let a = from;
  let b = items.n;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (itemBelow(hi[mid]!, lo[mid]!, ids, mid * 32, bound)) a = mid + 1;
    else b = mid;
  }
  return a;
}

/** The fingerprint of items `[from, to)`, from two prefix sums. */
export function rangeFingerprint(items: SealedItems, from: number, to: number): Uint8Array {
  return fingerprintOfDifference(items.sums, to * 8, items.sums, from * 8, to - from);
}
