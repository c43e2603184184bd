// A host or carrier keeps files without the space key: its space has a store and no
// membership to read, and it checks every list and chunk against the file id all the same.
import { expect, it } from 'vitest';
import { CHUNK_BYTES } from '../../src/files/chunks.js';
import { NodeFiles } from '../../src/files/node-files.js';
import type { FileSource } from '../../src/files/source.js';
import { createNode } from '../../src/node.js';
import { HeldSpace } from '../../src/space/held-space.js';
import { Store } from '../../src/store.js';
import { decodeVersion } from '../../src/version.js';
import { type Data, fakeStores } from '../fake-adapter.js';
import { nodeFixture, until } from '../sync-helpers.js';
import { same, sample } from './files-helpers.js';

const { nodes } = nodeFixture();

it('fetches, keeps and serves files with no key, checking them against their ids', async () => {
  const backing = new Map<string, Data>();
  const a = await createNode({ stores: fakeStores({ backing }) });
  nodes.push(a);
  const space = (await a.spaces.create()).id;
  const ref = await a.records.addFile(space, sample(3 * CHUNK_BYTES + 1, 11));
  const post = await a.records.put(space, 'app.post', { ref });

  // The holder's space: the versions as they came (sealed), a store, no key.
  const store = await Store.open(await fakeStores().open(`spaces/${space}`));
  const sealed = backing.get(`spaces/${space}`)!.versions.get(post.version)!;
  const entry = { id: space, access: a.did, offeredBy: a.did, added: 0 };
  const held = await HeldSpace.open(entry, store, {});
  const keeper = new NodeFiles(Date.now, true);
  let tampered = 0;
  const source: FileSource = {
    name: 'a',
    list: async (id) => (await a.files.list(space, id)) ?? null,
    chunk: async (id, n) => {
      const c = (await a.files.chunk(space, id, n)) ?? null;
      // The first answer for each chunk is tampered with; the fetch refuses it and asks again.
      if (c && tampered++ === 0) return c.map((x, i) => (i === 50 ? x ^ 1 : x));
      return c;
    },
  };
  keeper.addSources(() => [source, { ...source, name: 'a again' }]);
  const files = await keeper.opened(held);
  await held.takeIn([decodeVersion(sealed)]);
  await until(async () => files.whole().includes(ref.$file), 10_000, 'the holder fetching');
  for (let n = 0; n < 4; n++)
    expect(
      same((await files.files.chunk(ref.$file, n))!, (await a.files.chunk(space, ref.$file, n))!),
    ).toBe(true);
  const answer = await files.serve({ id: ref.$file, list: true, chunks: [0, 3, 4] });
  expect(answer.list).toEqual(await a.files.list(space, ref.$file));
  expect(answer.chunks.map((c) => c?.length ?? null)).toEqual([CHUNK_BYTES + 40, 41, null]);
  await keeper.closed(space);
  await store.close();
});
