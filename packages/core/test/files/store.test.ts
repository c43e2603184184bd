// What files leave in the store: they outlast a restart, a damaged chunk is fetched again, and
// listeners hear of changes.
import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES } from '../../src/files/chunks.js';
import { createNode } from '../../src/node.js';
import type { Data } from '../fake-adapter.js';
import { fakeStores } from '../fake-adapter.js';
import { connect, converged, nodeFixture, sharedSpace, until } from '../sync-helpers.js';
import { same, sample } from './files-helpers.js';

const { nodes } = nodeFixture();

describe('files in the store', () => {
  it('keeps a file across a restart, and its own/used entries', async () => {
    const backing = new Map<string, Data>();
    const a = await createNode({ stores: fakeStores({ backing }) });
    const space = (await a.spaces.create()).id;
    const bytes = sample(2 * CHUNK_BYTES + 5);
    const ref = await a.records.addFile(space, bytes);
    await a.records.put(space, 'app.post', { ref });
    await a.close();
    const again = await createNode({ stores: fakeStores({ backing }) });
    nodes.push(again);
    expect(await again.files.whole(space)).toEqual([ref.$file]);
    expect(same(await again.records.readFile(space, ref), bytes)).toBe(true);
    const entries = [...backing.get(`spaces/${space}`)!.entries.keys()].filter((k) =>
      k.startsWith('f/'),
    );
    expect(entries.sort()).toEqual(
      ['0', '1', '2', 'list', 'own', 'used'].map((p) => `f/${ref.$file}/${p}`).sort(),
    );
  });

  it('fetches again a chunk damaged in the store, and tells listeners', async () => {
    const backing = new Map<string, Data>();
    const a = await createNode({ stores: fakeStores() });
    const b = await createNode({ stores: fakeStores({ backing }) });
    nodes.push(a, b);
    const space = await sharedSpace(a, [b]);
    const changes: string[] = [];
    b.files.subscribe(space, (c) => changes.push(c.space));
    const bytes = sample(CHUNK_BYTES + 5, 3);
    const ref = await a.records.addFile(space, bytes);
    await a.records.put(space, 'app.post', { ref });
    connect(a, b);
    await converged([a, b], space);
    await until(async () => (await b.files.whole(space)).includes(ref.$file), 10_000, 'ahead');
    expect(changes).toContain(space);
    // A bit flips on B's disk.
    const stored = backing.get(`spaces/${space}`)!.entries;
    const key = `f/${ref.$file}/0`; // a full chunk: read from the adapter each time
    const bad = stored.get(key)!.slice();
    bad[3]! ^= 1;
    stored.set(key, bad);
    expect(same(await b.records.readFile(space, ref), bytes)).toBe(true);
    const now = backing.get(`spaces/${space}`)!.entries.get(key)!;
    expect(same(now, bad)).toBe(false);
    expect(same(now, (await a.files.chunk(space, ref.$file, 0))!)).toBe(true);
  });
});
