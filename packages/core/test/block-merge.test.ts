// Merging items into a set's blocks looks only at the blocks they land in (found by bisection):
// whatever blocks there are and wherever the items fall — before all, between, on items held,
// after all — the result must hold exactly the union, in order, and keep every block no item
// landed in as the same object, but one a full tail joined.
import { describe, expect, it } from 'vitest';
import { toHex } from '../src/bytes.js';
import { type Block, mergeInto, SMALL_WRITE, TAIL_BLOCK_SIZE } from '../src/negentropy/block.js';
import { ItemBuffer } from '../src/negentropy/item-buffer.js';

type Item = [number, Uint8Array];

/** Deterministic ids: 32 bytes from a counter. */
const idOf = (n: number) => {
  const id = new Uint8Array(32);
  new DataView(id.buffer).setUint32(0, Math.imul(n, 2654435761) >>> 0);
  new DataView(id.buffer).setUint32(28, n);
  return id;
};

const packed = (items: readonly Item[]) => {
  const buffer = new ItemBuffer();
  for (const [ts, id] of items) buffer.push(ts, id);
  return buffer.take();
};

const flat = (blocks: readonly Block[]) =>
  blocks.flatMap((b) =>
    Array.from(
      { length: b.n },
      (_, i) => `${b.lo[i]!}/${toHex(b.ids.subarray(32 * i, 32 * i + 32))}`,
    ),
  );

const keyOf = ([ts, id]: Item) => `${ts}/${toHex(id)}`;

/** Orders items by timestamp, then id. */
const byItem = (a: [number, string], b: [number, string]) =>
  a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

/** `items` as `ts/hex` keys, in order. */
const sortedKeys = (items: Iterable<Item>) =>
  [...items]
    .map(([ts, id]) => [ts, toHex(id)] as [number, string])
    .sort(byItem)
    .map(([ts, hex]) => `${ts}/${hex}`);

describe('mergeInto', () => {
  it('holds the union and keeps the blocks nothing landed in, wherever items fall', () => {
    let seed = 11;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      // The high bits: an LCG's low ones cycle.
      return Math.floor((seed / 2 ** 31) * n);
    };
    let counter = 0;
    // Sizes at and below a tail's (appends copy) and above it (tails kept apart, then joined).
    for (const [size, blockCount] of [
      [4, 40],
      [16, 40],
      [128, 40],
      [512, 8],
    ] as const) {
      const held: Item[] = Array.from({ length: blockCount * size }, (_, i) => [
        10 * (i + 1),
        idOf(counter++),
      ]);
      let blocks = mergeInto([], packed(held), size)!.blocks;
      const model = new Map(held.map((item) => [keyOf(item), item]));
      let last = 1_000_000_000;
      let joins = 0;
      for (let round = 0; round < 100; round++) {
        const top = 10 * (held.length + 10);
        const add: Item[] = [];
        // Where the write's items fall: 0 below every item; 1 after all, fewer than a tail's;
        // 2 on items held already; else anywhere, a few, or (4) a run of up to three blocks.
        const shape = next(6);
        const many = 1 + next(shape === 4 ? 3 * size : shape === 1 ? SMALL_WRITE - 1 : 4);
        for (let j = 0; j < many; j++) {
          if (shape === 0) add.push([next(5), idOf(counter++)]);
          else if (shape === 1) add.push([(last += 1 + next(3)), idOf(counter++)]);
          else if (shape === 2) add.push(held[next(held.length)]!);
          else add.push([next(top), idOf(counter++)]);
        }
        const unique = [...new Map(add.map((item) => [keyOf(item), item])).values()];
        const fresh = unique.filter((item) => !model.has(keyOf(item)));
        const merged = mergeInto(blocks, packed(unique), size);
        if (fresh.length === 0) {
          expect(merged).toBeUndefined();
          continue;
        }
        expect(merged).toBeDefined();
        const { blocks: out, from } = merged!;
        for (const item of fresh) {
          model.set(keyOf(item), item);
          held.push(item);
        }
        expect(flat(out)).toEqual(sortedKeys(model.values()));
        // Blocks before `from` are the same objects at the same places.
        expect(out.slice(0, from).every((block, k) => block === blocks[k])).toBe(true);
        // A block no new item landed in is kept as it was, the same object.
        const kept = new Set(out);
        for (let k = 0; k < blocks.length; k++) {
          const landed = fresh.some((item) => {
            const next = blocks[k + 1];
            const inside = k === 0 || compare(item, blocks[k]!, 0) >= 0;
            const beforeNext = !next || compare(item, next, 0) < 0;
            return inside && beforeNext;
          });
          if (landed || kept.has(blocks[k]!)) continue;
          // Else it was joined by the block of small writes after it, which the items followed:
          // one block now starts with its items and that block's.
          const next = blocks[k + 1]!;
          expect(next.n, `block ${k}`).toBeLessThan(SMALL_WRITE);
          const first = `${blocks[k]!.lo[0]}/${toHex(blocks[k]!.ids.subarray(0, 32))}`;
          const join = out.find((b) => flat([b])[0] === first);
          expect(join?.n, `block ${k}`).toBe(blocks[k]!.n + next.n);
          joins++;
        }
        expect(Math.max(...out.map((block) => block.n))).toBeLessThanOrEqual(size);
        blocks = out;
      }
      // Writes after all the items fill tails, and full tails join the blocks before them.
      if (size > TAIL_BLOCK_SIZE) expect(joins).toBeGreaterThan(0);
    }
  });
});

/** Orders an item against item `i` of a block: timestamp, then id bytes. */
function compare([ts, id]: Item, block: Block, i: number): number {
  const bts = block.hi[i]! * 0x1_0000_0000 + block.lo[i]!;
  if (ts !== bts) return ts - bts;
  const other = block.ids.subarray(32 * i, 32 * i + 32);
  for (let b = 0; b < 32; b++) if (id[b] !== other[b]) return id[b]! - other[b]!;
  return 0;
}
