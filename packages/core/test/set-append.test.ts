// Items added after a set's last (a node's own writes) are written behind the last block in
// room kept for them, not copied with it: every block must still read as one built from
// scratch, a snapshot must keep what it saw, and a change planned but never applied must not
// show in the one applied after it.
import { randomBytes } from '@noble/ciphers/utils.js';
import { describe, expect, it } from 'vitest';
import { toHex } from '../src/bytes.js';
import { CollectionSet, STORE_BLOCK_SIZE } from '../src/collection-set.js';
import { CHUNK, SMALL_WRITE, TAIL_BLOCK_SIZE } from '../src/negentropy/block.js';
import { ItemBuffer } from '../src/negentropy/item-buffer.js';
import { limbsOf, prefixSums } from '../src/negentropy/limbs.js';
import { type NegentropySnapshot, snapshotItems } from '../src/negentropy/set.js';

const itemsOf = (list: ReadonlyArray<[number, Uint8Array]>) => {
  const buffer = new ItemBuffer();
  for (const [ts, id] of list) buffer.push(ts, id);
  return buffer.take();
};

/** The set's items, and each block checked against sums made from scratch. */
function checked(set: CollectionSet): Array<[number, string]> {
  for (const block of set.blocks) {
    expect(block.ids.length).toBe(32 * block.n);
    expect(block.hi.length).toBe(block.n);
    expect([...block.sums]).toEqual([...prefixSums(limbsOf(block.ids, block.n), block.n, CHUNK)]);
  }
  return [...set.items()];
}

describe('a collection set taking items after its last', () => {
  it('reads as the set built from scratch, snapshots keeping what they saw', () => {
    const set = CollectionSet.of('app.post', itemsOf([[1, randomBytes(32)]]));
    const all: Array<[number, Uint8Array]> = [];
    const seen: Array<{ items: Array<[number, string]>; snapshot: NegentropySnapshot }> = [];
    for (let t = 2; t < 3 * STORE_BLOCK_SIZE; t++) {
      // Mostly one at a time, sometimes a run, as puts and putMany come.
      const run = t % 97 === 0 ? 40 : 1;
      const add = Array.from(
        { length: run },
        (_, i) => [t * 100 + i, randomBytes(32)] as [number, Uint8Array],
      );
      all.push(...add);
      const plan = set.plan(itemsOf(add))!;
      set.apply(plan);
      if (t % 50 === 0) seen.push({ items: [...set.items()], snapshot: set.snapshot() });
    }
    const items = checked(set);
    const scratch = CollectionSet.of(
      'app.post',
      itemsOf([...[[1, set.blocks[0]!.ids.slice(0, 32)] as [number, Uint8Array]], ...all]),
    );
    expect(items).toEqual([...scratch.items()]);
    expect(toHex(set.sum())).toBe(toHex(scratch.sum()));
    expect(set.count).toBe(scratch.count);
    // What each snapshot saw is still what it holds, item for item.
    for (const { items: then, snapshot } of seen) {
      const held = snapshotItems(snapshot).blocks.flatMap((b) =>
        Array.from({ length: b.n }, (_, i) => [
          b.lo[i]!,
          toHex(b.ids.subarray(32 * i, 32 * i + 32)),
        ]),
      );
      expect(held).toEqual(then);
    }
  });

  it('shows nothing of a change planned but never applied', () => {
    const set = CollectionSet.of(
      'app.post',
      itemsOf([
        [1, randomBytes(32)],
        [2, randomBytes(32)],
      ]),
    );
    // Room behind the last block, once one item went in after it.
    set.apply(set.plan(itemsOf([[3, randomBytes(32)]]))!);
    const before = checked(set);
    const dropped = set.plan(itemsOf([[4, randomBytes(32)]]))!;
    const kept = set.plan(itemsOf([[5, randomBytes(32)]]))!;
    set.apply(kept);
    const after = checked(set);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.map(([ts]) => ts)).toEqual([1, 2, 3, 5]);
    // The dropped plan's blocks still hold what it planned.
    const planned = dropped.blocks.flatMap((b) => Array.from({ length: b.n }, (_, i) => b.lo[i]!));
    expect(planned).toEqual([1, 2, 3, 4]);
    expect(before).toHaveLength(3);
  });

  it('rewrites a tail’s page per write one after another, full tails joining blocks of the set’s size', () => {
    const set = CollectionSet.of('app.post', itemsOf([[1, randomBytes(32)]]));
    const puts = 3 * STORE_BLOCK_SIZE;
    for (let t = 2; t <= puts; t++) {
      const plan = set.plan(itemsOf([[t, randomBytes(32)]]))!;
      // The page of the tail the item went to; once a tail is full, also the block before it,
      // joined with that tail (one page, at most the set's size), and the full tail's page goes.
      expect(plan.puts.length).toBeLessThanOrEqual(2);
      expect(plan.puts.at(-1)![1].length).toBeLessThanOrEqual(40 * TAIL_BLOCK_SIZE);
      if (plan.puts.length === 2) {
        expect(plan.puts[0]![1].length).toBeLessThanOrEqual(40 * STORE_BLOCK_SIZE);
        expect(plan.deletes).toHaveLength(1);
      }
      set.apply(plan);
    }
    // Blocks of the set's size, then the rest, the tail last: not a block per tail.
    const sizes = set.blocks.map((b) => b.n);
    expect(sizes.slice(0, 2)).toEqual([STORE_BLOCK_SIZE, STORE_BLOCK_SIZE]);
    expect(sizes.length).toBeLessThanOrEqual(5);
    expect(sizes.at(-1)).toBeLessThanOrEqual(TAIL_BLOCK_SIZE);
    expect(checked(set)).toHaveLength(puts);
    // A message's worth at once still appends up to the set's size.
    const last = set.blocks.at(-1)!.n;
    const run = Array.from(
      { length: SMALL_WRITE },
      (_, i) => [10_000 + i, randomBytes(32)] as [number, Uint8Array],
    );
    set.apply(set.plan(itemsOf(run))!);
    expect(set.blocks.at(-1)!.n).toBe(last + SMALL_WRITE);
    expect(checked(set)).toHaveLength(puts + SMALL_WRITE);
  });

  it('gives a few more than a tail’s items a block of their own, which the next small write joins to the one before', () => {
    const set = CollectionSet.of('app.post', itemsOf([[1, randomBytes(32)]]));
    for (let t = 2; t <= STORE_BLOCK_SIZE / 2; t++)
      set.apply(set.plan(itemsOf([[t, randomBytes(32)]]))!);
    const few = SMALL_WRITE - 1;
    const plan = set.plan(
      itemsOf(
        Array.from({ length: few }, (_, i) => [1_000 + i, randomBytes(32)] as [number, Uint8Array]),
      ),
    )!;
    // Its own block's page, after the tail joined to the block before it: no page of the set's
    // size with the few appended.
    expect(plan.puts.at(-1)![1].length).toBe(40 * few);
    set.apply(plan);
    expect(set.blocks.map((b) => b.n)).toEqual([STORE_BLOCK_SIZE / 2, few]);
    set.apply(set.plan(itemsOf([[5_000, randomBytes(32)]]))!);
    expect(set.blocks.map((b) => b.n)).toEqual([STORE_BLOCK_SIZE / 2 + few, 1]);
    expect(checked(set)).toHaveLength(STORE_BLOCK_SIZE / 2 + few + 1);
  });
});
