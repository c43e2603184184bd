import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createDirectoryBlobStore } from '../src/node.ts';
import { timeUuid } from '../src/time-uuid.ts';
import { countingFolder } from './counting-folder.ts';
import { tempDir } from './temp-dir.ts';

let dir: string;
let teardown: () => Promise<void>;
beforeEach(async () => ({ dir, teardown } = await tempDir()));
afterEach(() => teardown());

it('keeps each key part as a folder and the last as a file, gone with its last key', async () => {
  const store = createDirectoryBlobStore(dir);
  await store.put('spaces/Ab1/w-1/seg.1', new Uint8Array([1]));
  await store.put('spaces/Ab1/w-1/seg.2', new Uint8Array([2]));
  expect(await readdir(join(dir, 'spaces', '_ab1', 'w-1'))).toEqual([
    'seg_-002e1.minca',
    'seg_-002e2.minca',
  ]);
  expect(((await stat(join(dir, 'spaces'))).mode & 0o777).toString(8)).toBe('700');
  const file = join(dir, 'spaces', '_ab1', 'w-1', 'seg_-002e1.minca');
  expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
  await store.delete('spaces/Ab1/w-1/seg.1');
  expect(await readdir(join(dir, 'spaces', '_ab1', 'w-1'))).toEqual(['seg_-002e2.minca']);
  await store.delete('spaces/Ab1/w-1/seg.2');
  expect(await readdir(dir)).toEqual([]);
});

it('lists no conflict copies, temp files or strangers', async () => {
  const store = createDirectoryBlobStore(dir);
  await store.put('s/seg', new Uint8Array([1]));
  await writeFile(join(dir, 's', 'seg (conflicted copy 2026-12-02).minca'), 'x');
  await writeFile(join(dir, 's', 'seg.sync-conflict-20261202-143000-7ERY2XS.minca'), 'x');
  await writeFile(join(dir, 's', 'seg.minca.0f8fad5b-d9cb-469f-a165-70867728950e.tmp'), 'x');
  await mkdir(join(dir, 's', 'Folder (1)'));
  await writeFile(join(dir, 's', 'Folder (1)', 'x.minca'), 'x');
  await writeFile(join(dir, 'desktop.ini'), 'x');
  const fresh = `seg.minca.${timeUuid()}.tmp`;
  await writeFile(join(dir, 's', fresh), 'a put on its way');
  expect(await store.list('')).toEqual(['s/seg']);
  expect(await store.get('s/seg')).toEqual(new Uint8Array([1]));
  // The listing cleared the old temp file and left the fresh one alone.
  const left = (await readdir(join(dir, 's'))).filter((name) => name.endsWith('.tmp'));
  expect(left).toEqual([fresh]);
});

it('lists a prefix from its folder, reading no folder beside it, and finds what a walk from the root finds', async () => {
  const { fs: counted, read } = countingFolder(dir);
  const store = createDirectoryBlobStore(counted);
  const long = `L${'X'.repeat(120)}`; // 242 characters encoded, over one name's 160: a chain
  const keys = [
    'spaces/Ab1/w-1/seg.1',
    'spaces/Ab1/w-1/seg.2',
    'spaces/Ab1/w-2/seg.1',
    'spaces/Ab10/w-1/seg.1',
    'spaces/ab1/w-1/seg.1',
    `spaces/${long}/w-1/seg.1`,
    `spaces/${long}y/w-1/seg.1`,
    'top',
  ];
  for (const key of keys) await store.put(key, new Uint8Array([1]));
  for (let i = 0; i < 50; i++) await store.put(`spaces/other-${i}/w/seg`, new Uint8Array([1]));
  const all = await store.list('');
  for (const prefix of [
    'spaces/Ab1/',
    'spaces/Ab1/w-1/',
    'spaces/Ab1/w-1/seg.',
    'spaces/Ab1',
    'spaces/ab1/',
    `spaces/${long}/`,
    `spaces/${long}`,
    'spaces/none/',
    'spaces/',
    'sp',
    '',
  ]) {
    read.length = 0;
    expect(await store.list(prefix)).toEqual(all.filter((key) => key.startsWith(prefix)));
    // A prefix naming whole folders is read from there: neither the root nor `spaces` itself.
    if (prefix.startsWith('spaces/') && prefix.lastIndexOf('/') > 'spaces'.length) {
      expect(read).not.toContain('');
      expect(read).not.toContain('spaces');
    }
  }
});
