/**
 * What one side of a Negentropy session reads: a sorted list of distinct items that does not
 * change while the session uses it. Both storages give one: the sealed vector
 * (`NegentropyStorage`) and a snapshot of the set kept in blocks (`NegentropySet`).
 */
import type { Bound } from './bound.js';
import type { Writer } from './writer.js';

export interface SyncItems {
  /** The number of items. */
  readonly n: number;
  /** Points `into` at item `i` (`0 <= i < n`): its timestamp and whole id, a view, not a copy. */
  item(i: number, into: Bound): void;
  /** The first index in `[from, n)` whose item is at or above `bound`, or `n`. */
  lowerBound(from: number, bound: Bound): number;
  /** The fingerprint of items `[from, to)`. */
  fingerprint(from: number, to: number): Uint8Array;
  /** Appends the ids of items `[from, to)` to `out`. */
  writeIds(out: Writer, from: number, to: number): void;
  /** The ids of items `[from, to)`, packed 32 bytes each: a view where they already are. */
  packedIds(from: number, to: number): Uint8Array;
}
