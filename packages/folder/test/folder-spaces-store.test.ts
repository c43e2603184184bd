import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { folderSpacesStore } from '../src/folder-spaces-store.ts';
import { nodeFolder } from '../src/node.ts';
import { conflictCopyName } from '../src/testing/sync-service.ts';
import { timeUuid } from '../src/time-uuid.ts';
import { countingFolder } from './counting-folder.ts';
import { tempDir } from './temp-dir.ts';

let dir: string;
let teardown: () => Promise<void>;
beforeEach(async () => ({ dir, teardown } = await tempDir()));
afterEach(() => teardown());

const segment = 'sp/wr/0000000001-0123456789abcdef';

it('lists conflict copies beside their file, reads and deletes them', async () => {
  const store = folderSpacesStore(nodeFolder(dir), { sync: false });
  await store.put(segment, new Uint8Array([1]));
  const folder = join(dir, 'sp', 'wr');
  const name = '0000000001-0123456789abcdef.minca';
  await writeFile(join(folder, conflictCopyName(name, 'syncthing')), new Uint8Array([2]));
  await writeFile(join(folder, conflictCopyName(name, 'dropbox')), new Uint8Array([3]));
  await writeFile(join(folder, 'stray (copy).txt'), 'x');
  const keys = await store.list('sp/');
  expect(keys).toHaveLength(3);
  expect(keys[0]).toBe(segment);
  const copies = keys.slice(1);
  // Each copy's key keeps the segment's name first, then what tells the copies apart.
  for (const key of copies)
    expect(key).toMatch(/^sp\/wr\/0000000001-0123456789abcdef\.conflict-[0-9a-f]{16}$/);
  const values = await Promise.all(copies.map((key) => store.get(key)));
  expect(values.map((v) => v?.[0]).sort()).toEqual([2, 3]);
  expect(await store.list('sp/wr/0000000001-0123456789abcdef.')).toEqual(copies);
  await store.delete(copies[0]!);
  expect(await store.list('sp/')).toEqual([segment, copies[1]]);
  expect(await store.get(copies[0]!)).toBeNull();
  await store.delete(segment);
  await store.delete(copies[1]!);
  expect(await store.list('')).toEqual([]);
  expect(await readdir(folder)).toEqual(['stray (copy).txt']);
});

it("lists a space's files and their copies in one walk of its folders, clearing stale temp files", async () => {
  const { fs: counted, read } = countingFolder(dir);
  const store = folderSpacesStore(counted, { sync: false });
  await store.put(segment, new Uint8Array([1]));
  await store.put('other/wr/0000000001-0123456789abcdef', new Uint8Array([1]));
  const folder = join(dir, 'sp', 'wr');
  const name = '0000000001-0123456789abcdef.minca';
  await writeFile(join(folder, conflictCopyName(name, 'dropbox')), new Uint8Array([2]));
  // A temp file a crash left (a uuid with no time in it is old), and one of a put on its way.
  const stale = `${name}.0f8fad5b-d9cb-469f-a165-70867728950e.tmp`;
  const fresh = `${name}.${timeUuid()}.tmp`;
  for (const temp of [stale, fresh]) await writeFile(join(folder, temp), 'x');
  read.length = 0;
  const keys = await store.list('sp/');
  expect(keys).toHaveLength(2);
  expect(keys[0]).toBe(segment);
  expect(keys[1]).toMatch(/\.conflict-[0-9a-f]{16}$/);
  // The space's folder and its writer's, each once: not the root, nor another space's.
  expect(read.sort()).toEqual(['sp', 'sp/wr']);
  expect((await readdir(folder)).sort()).toEqual(
    [conflictCopyName(name, 'dropbox'), fresh, name].sort(),
  );
});
