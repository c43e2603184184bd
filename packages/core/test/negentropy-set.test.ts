// The set kept in blocks answers exactly as the sorted vector does: the same bytes in every
// message, over random sets, random block sizes and random insert orders, and a session keeps
// the snapshot it started with while items keep arriving.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../src/bytes.js';
import {
  Negentropy,
  NegentropySet,
  NegentropySnapshot,
  NegentropyStorage,
} from '../src/negentropy/index.js';
import { snapshotItems } from '../src/negentropy/set.js';
import { type Item, itemsOf, spec } from './negentropy-items.js';
import vectors from './vectors/negentropy.json' with { type: 'json' };

type Side = NegentropyStorage | NegentropySnapshot;

function storageOf(...lists: Item[][]): NegentropyStorage {
  const s = new NegentropyStorage();
  for (const list of lists) for (const { ts, id } of list) s.insert(ts, id);
  s.seal();
  return s;
}

/** A seeded shuffle (mulberry32), so a failing case replays. */
function shuffled<T>(list: readonly T[], seed: number): T[] {
  let x = seed >>> 0;
  const random = () => {
    x = (x + 0x6d2b79f5) >>> 0;
    let t = x;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * A set of `items` inserted in a shuffled order, in `batches` with a snapshot after each (so
 * blocks are merged into many times), some items inserted twice.
 */
function setOf(items: Item[], blockSize: number, batches: number, seed: number): NegentropySet {
  const set = new NegentropySet({ blockSize });
  const order = shuffled(items, seed);
  const per = Math.max(1, Math.ceil(order.length / batches));
  for (let at = 0; at < order.length; at += per) {
    for (const { ts, id } of order.slice(at, at + per)) set.insert(ts, id);
    // Again, a few already held: dropped.
    for (const { ts, id } of order.slice(at / 2, at / 2 + 3)) set.insert(ts, id);
    set.snapshot();
  }
  return set;
}

interface Transcript {
  messages: string[];
  have: string[];
  need: string[];
}

function transcript(client: Side, server: Side, clientLimit: number, serverLimit: number) {
  const out: Transcript = { messages: [], have: [], need: [] };
  const ne = new Negentropy(client, clientLimit);
  let msg: Uint8Array | undefined = ne.initiate();
  while (msg) {
    expect(out.messages.length).toBeLessThan(200);
    out.messages.push(toHex(msg));
    const reply = new Negentropy(server, serverLimit).reconcile(msg).reply!;
    out.messages.push(toHex(reply));
    const res = ne.reconcile(reply);
    out.have.push(...res.have.map(toHex));
    out.need.push(...res.need.map(toHex));
    msg = res.reply;
  }
  return out;
}

/** A spec of `common` items, none on one side only. */
const specOf = (common: number) => ({
  seed: 3,
  common,
  clientOnly: 0,
  serverOnly: 0,
  base: 1_700_000_000_000n,
  spread: 1000,
  sharedPrefix: 0,
  clientLimit: 0,
  serverLimit: 0,
});

const blockSize = fc.constantFrom(2, 3, 7, 16, 33, 1024);

describe('NegentropySet against the sorted vector', () => {
  test.prop([spec, blockSize, fc.integer({ min: 1, max: 12 }), fc.nat()], { numRuns: 60 })(
    'gives the same bytes in every message',
    (s, size, batches, seed) => {
      const { common, client, server } = itemsOf(s);
      const want = transcript(
        storageOf(common, client),
        storageOf(common, server),
        s.clientLimit,
        s.serverLimit,
      );
      const clientSet = setOf([...common, ...client], size, batches, seed);
      const serverSet = setOf([...common, ...server], size, batches, seed + 1);
      expect(clientSet.size).toBe(common.length + client.length);
      const got = transcript(
        clientSet.snapshot(),
        serverSet.snapshot(),
        s.clientLimit,
        s.serverLimit,
      );
      expect(got).toEqual(want);
      // No block empty or over the size, and they add up to the set.
      const blocks = snapshotItems(clientSet.snapshot()).blocks;
      expect(blocks.every((b) => b.n > 0 && b.n <= size)).toBe(true);
      expect(blocks.reduce((n, b) => n + b.n, 0)).toBe(clientSet.size);
    },
  );

  test.prop([spec, blockSize, fc.array(fc.nat({ max: 40 }), { minLength: 1, maxLength: 8 })], {
    numRuns: 60,
  })('a session keeps its snapshot while items arrive on both sides', (s, size, arrivals) => {
    const { common, client, server, more } = itemsOf(s);
    const clientSet = setOf([...common, ...client], size, 3, s.seed);
    const serverSet = setOf([...common, ...server], size, 3, s.seed + 1);
    const serverItems = [...common, ...server];
    const start = clientSet.snapshot();
    const first = new Negentropy(start, s.clientLimit).initiate();

    // The same session over vectors: the client's items as they were, the server's as they are.
    const ne = new Negentropy(start, s.clientLimit);
    const ref = new Negentropy(storageOf(common, client), s.clientLimit);
    let msg: Uint8Array | undefined = ne.initiate();
    expect(toHex(ref.initiate())).toBe(toHex(msg));
    let round = 0;
    while (msg) {
      expect(round).toBeLessThan(100);
      const arriving = more(arrivals[round++ % arrivals.length]!);
      for (const { ts, id } of arriving) {
        clientSet.insert(ts, id);
        serverSet.insert(ts, id);
      }
      // And one the server holds already.
      if (serverItems.length > 0) serverSet.insert(serverItems[0]!.ts, serverItems[0]!.id);
      serverItems.push(...arriving);
      const reply = new Negentropy(serverSet.snapshot(), s.serverLimit).reconcile(msg).reply!;
      const refReply = new Negentropy(storageOf(serverItems), s.serverLimit).reconcile(msg).reply!;
      expect(toHex(reply)).toBe(toHex(refReply));
      const res = ne.reconcile(reply);
      const refRes = ref.reconcile(reply);
      expect(res.have.map(toHex)).toEqual(refRes.have.map(toHex));
      expect(res.need.map(toHex)).toEqual(refRes.need.map(toHex));
      expect(res.reply && toHex(res.reply)).toBe(refRes.reply && toHex(refRes.reply));
      msg = res.reply;
    }
    // What the session read is as it was; the set has moved on.
    expect(start.size).toBe(common.length + client.length);
    expect(toHex(new Negentropy(start, s.clientLimit).initiate())).toBe(toHex(first));
    expect(serverSet.size).toBe(serverItems.length);
    expect(toHex(new Negentropy(serverSet.snapshot()).initiate())).toBe(
      toHex(new Negentropy(storageOf(serverItems)).initiate()),
    );
  });
});

type VectorItem = [number | string, string];
interface Case {
  name: string;
  clientFrameSizeLimit: number;
  serverFrameSizeLimit: number;
  items: { common: VectorItem[]; clientOnly: VectorItem[]; serverOnly: VectorItem[] };
  messages: string[];
}

describe('NegentropySet', () => {
  it('reproduces every reference transcript, whatever the block size', () => {
    const cases = vectors.cases as unknown as Case[];
    const snap = (size: number, ...lists: VectorItem[][]) => {
      const set = new NegentropySet({ blockSize: size });
      for (const list of lists) for (const [ts, id] of list) set.insert(BigInt(ts), fromHex(id));
      return set.snapshot();
    };
    for (const size of [2, 5, 1024]) {
      for (const c of cases) {
        const got = transcript(
          snap(size, c.items.common, c.items.clientOnly),
          snap(size, c.items.common, c.items.serverOnly),
          c.clientFrameSizeLimit,
          c.serverFrameSizeLimit,
        );
        expect(got.messages, `${c.name}, blocks of ${size}`).toEqual(c.messages);
      }
    }
  });

  it('returns the same snapshot until something new is inserted', () => {
    const set = new NegentropySet({ blockSize: 4 });
    const id = (b: number) => new Uint8Array(32).fill(b);
    const empty = set.snapshot();
    expect(set.snapshot()).toBe(empty);
    expect(empty.size).toBe(0);
    for (let i = 0; i < 10; i++) set.insert(i, id(i));
    const ten = set.snapshot();
    expect(ten).not.toBe(empty);
    expect(ten.size).toBe(10);
    set.insert(3, id(3));
    expect(set.snapshot()).toBe(ten);
    set.insert(3, id(4));
    const eleven = set.snapshot();
    expect(eleven.size).toBe(11);
    expect(ten.size).toBe(10);
    // Only the block item (3, 4…) landed in is new; the others are the same objects.
    const before = snapshotItems(ten).blocks;
    const after = snapshotItems(eleven).blocks;
    const shared = after.filter((b) => before.includes(b));
    expect(shared.length).toBeGreaterThanOrEqual(before.length - 1);
  });

  it('takes ids as hex as it takes them as bytes', () => {
    const { common } = itemsOf({ ...specOf(300), spread: 5 });
    const bytes = new NegentropySet({ blockSize: 8 });
    const hex = new NegentropySet({ blockSize: 8 });
    for (const { ts, id } of common) {
      bytes.insert(ts, id);
      hex.insertHex(ts, toHex(id));
    }
    expect(toHex(new Negentropy(hex.snapshot()).initiate())).toBe(
      toHex(new Negentropy(bytes.snapshot()).initiate()),
    );
    expect(hex.size).toBe(300);
  });

  it('refuses bad items and bad block sizes', () => {
    const set = new NegentropySet();
    const id = new Uint8Array(32);
    expect(() => set.insert(-1, id)).toThrow(RangeError);
    expect(() => set.insert(2n ** 64n - 1n, id)).toThrow(RangeError);
    expect(() => set.insert('1' as unknown as number, id)).toThrow(TypeError);
    expect(() => set.insert(1, new Uint8Array(31))).toThrow(RangeError);
    expect(() => set.insert(1, Array(32).fill(0) as unknown as Uint8Array)).toThrow(TypeError);
    expect(set.size).toBe(0);
    for (const bad of ['ab'.repeat(31), 'AB'.repeat(32), `${'ab'.repeat(31)}g0`, 7])
      expect(() => set.insertHex(1, bad as string)).toThrow(TypeError);
    expect(() => set.insertHex(-1, 'ab'.repeat(32))).toThrow(RangeError);
    expect(set.size).toBe(0);
    for (const bad of [0, 1, 1.5, 2 ** 20 + 1, Number.NaN])
      expect(() => new NegentropySet({ blockSize: bad })).toThrow(RangeError);
    expect(() => new Negentropy(Object.create(NegentropySnapshot.prototype))).toThrow(TypeError);
  });
});
