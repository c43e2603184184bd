import { describe, expect, it } from 'vitest';
import { ChunkShelf } from '../../src/files/chunk-shelf.ts';
import { NAMED_INDEX_KEY } from '../../src/named-files.ts';
import { createNode } from '../../src/node.ts';
import { type Data, fakeBlobStore, fakeStores } from '../fake-adapter.ts';
import { same, sample } from './files-helpers.ts';

const KiB = 1024;

describe('file chunks on a shelf beside the store', () => {
  it('keeps chunks on the shelf, a marker in the store, and deletes strays when the space opens', async () => {
    const backing = new Map<string, Data>();
    const shelf = fakeBlobStore();
    const config = { stores: fakeStores({ backing }), fileChunks: { store: shelf } };
    const a = await createNode(config);
    const space = (await a.spaces.create()).id;
    const ref = await a.records.addFile(space, sample(600 * KiB, 2));
    await a.records.put(space, 'app.doc', { ref });
    const entries = backing.get(`spaces/${space}`)!.entries;
    for (const n of [0, 1, 2])
      expect(entries.get(`f/${ref.$file}/${n}`)).toEqual(new Uint8Array([0]));
    expect((await shelf.list(`${space}/`)).sort()).toEqual(
      [0, 1, 2].map((n) => `${space}/${ref.$file}/${n}`),
    );
    await a.close();

    // A crash between the shelf's write and the store's: a chunk no entry claims.
    const stray = `${space}/${'ab'.repeat(32)}/0`;
    await shelf.put(stray, new Uint8Array(100));
    const b = await createNode({ ...config, stores: fakeStores({ backing }) });
    await b.spaces.open(space);
    expect(same(await b.records.readFile(space, ref), sample(600 * KiB, 2))).toBe(true);
    expect(await shelf.get(stray)).toBeNull();
    await b.close();
  });

  it('past its budget drops only files a mirror holds, and reads them back from it', async () => {
    const bucket = fakeBlobStore();
    const shelf = fakeBlobStore();
    const a = await createNode({
      stores: fakeStores(),
      mirrors: [bucket],
      fileChunks: { store: shelf, budget: 700 * KiB },
    });
    const space = (await a.spaces.create()).id;
    const named = await a.records.addFile(space, sample(600 * KiB, 3));
    await a.records.put(space, 'app.doc', { named });
    const own = await a.records.addFile(space, sample(500 * KiB, 4)); // in no mirror
    await new Promise((r) => setTimeout(r, 50));
    expect(await shelf.list(`${space}/${named.$file}/`)).toHaveLength(3); // not in the mirror yet
    await a.spaces.syncMirrors(space);
    await a.spaces.syncMirrors(space);
    for (let i = 0; i < 100 && (await shelf.list(`${space}/${named.$file}/`)).length > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await shelf.list(`${space}/${named.$file}/`)).toEqual([]);
    expect(await shelf.list(`${space}/${own.$file}/`)).toHaveLength(2);
    expect(same(await a.records.readFile(space, named), sample(600 * KiB, 3))).toBe(true);
    await a.close();
  });

  it('adds a stream of unknown size on the shelf, sealed again in place, and reads it back', async () => {
    const shelf = fakeBlobStore();
    const backing = new Map<string, Data>();
    const a = await createNode({ stores: fakeStores({ backing }), fileChunks: { store: shelf } });
    const space = (await a.spaces.create()).id;
    const bytes = sample(20 * 256 * KiB + 3, 6); // 21 chunks: past 16, so sealed twice
    async function* pieces() {
      for (let at = 0; at < bytes.length; at += 100_000) yield bytes.subarray(at, at + 100_000);
    }
    const ref = await a.records.addFile(space, pieces());
    await a.records.put(space, 'app.doc', { ref });
    expect(same(await a.records.readFile(space, ref), bytes)).toBe(true);
    // Every chunk is on the shelf, none in the store.
    const entries = backing.get(`spaces/${space}`)!.entries;
    const chunkEntries = [...entries].filter(([k]) => /^f\/[0-9a-f]{64}\/\d+$/.test(k));
    expect(chunkEntries).toHaveLength(21);
    for (const [, value] of chunkEntries) expect(value.length).toBe(1);
    expect(await shelf.list(`${space}/`)).toHaveLength(21);
    await a.close();
  });

  it('turns no name from outside into a key without checking it', async () => {
    const shelf = new ChunkShelf({ store: fakeBlobStore() }, () => [], Date.now);
    expect(() => shelf.forSpace('../../etc')).toThrow(/not a chunk/);
    const chunks = shelf.forSpace('a'.repeat(26));
    await expect(chunks.get('../x', 0)).rejects.toThrow(/not a chunk/);
    await expect(chunks.put('0'.repeat(64), [[-1, new Uint8Array(41)]])).rejects.toThrow(
      /not a chunk/,
    );
    await expect(chunks.fromBucket('f/../..', 0)).rejects.toThrow(/not a chunk/);
    await shelf.close();
  });

  it('gives a store from before y/ entries its entries once, so no named file looks unnamed', async () => {
    const backing = new Map<string, Data>();
    const a = await createNode({ stores: fakeStores({ backing, optional: true }) });
    const space = (await a.spaces.create()).id;
    const ref = await a.records.addFile(space, sample(1000, 5));
    await a.records.put(space, 'app.doc', { ref });
    await a.close();
    // As an older minca left it: no y/ entries and no mark.
    const entries = backing.get(`spaces/${space}`)!.entries;
    for (const key of [...entries.keys()])
      if (key.startsWith('y/') || key === NAMED_INDEX_KEY) entries.delete(key);

    const b = await createNode({ stores: fakeStores({ backing, optional: true }) });
    await b.spaces.open(space);
    // New limits run a pass within 0.5 s: one that would drop a file it took for unnamed.
    await b.setFileLimits({ keep: 1024 * 1024 });
    await new Promise((r) => setTimeout(r, 1200));
    expect(entries.has(NAMED_INDEX_KEY)).toBe(true);
    expect([...entries.keys()].some((k) => k.startsWith(`y/${ref.$file}/app.doc/`))).toBe(true);
    expect(await b.files.whole(space)).toContain(ref.$file);
    await b.close();
  });
});
