import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMincaError, LruBodyCache, type MincaError } from '@minca/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeJournal } from '../src/journal.ts';
import { directoryStores } from '../src/node.ts';
import { tempDir } from './temp-dir.ts';

const id = (n: number) => n.toString(16).padStart(64, '0');
const bytes = (...values: number[]) => new Uint8Array(values);

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return isMincaError(error) ? error.code : error instanceof Error ? error.name : undefined;
}

/** Every file and folder under `dir`, as paths relative to it. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

let dir: string;
let teardown: () => Promise<void>;
beforeEach(async () => ({ dir, teardown } = await tempDir()));
afterEach(() => teardown());

describe('directoryStores on disk', () => {
  it('lays a store out as files: 0600 files in 0700 folders', async () => {
    const store = await directoryStores(dir).open('spaces/abc');
    await store.commit({
      versions: [[id(1), bytes(1)]],
      entries: [
        { key: `v/notes/${id(1)}`, value: bytes(2) },
        { key: 'Mirror:Known', value: bytes(3) },
      ],
      deleteVersions: [],
    });
    const root = join(dir, 'spaces', 'abc');
    expect(await tree(root)).toEqual([
      'entries.d',
      'entries.d/_mirror_-003a_known.minca',
      'entries.d/v',
      'entries.d/v/notes',
      `entries.d/v/notes/${id(1)}.minca`,
      'journal.d',
      'versions.d',
      'versions.d/00',
      `versions.d/00/${id(1)}.minca`,
    ]);
    for (const path of await tree(dir)) {
      const { mode } = await stat(join(dir, path));
      const isDir = (mode & 0o170000) === 0o040000;
      expect((mode & 0o777).toString(8), path).toBe(isDir ? '700' : '600');
    }
  });

  it('reads keys once, and again on reload; shared reads the disk every time', async () => {
    const writer = await directoryStores(dir).open('registry');
    const cached = await directoryStores(dir).open('registry');
    const shared = await directoryStores(dir, { shared: true }).open('registry');
    await writer.batch([{ key: 'a', value: bytes(1) }]);
    expect(await cached.list('')).toEqual([]);
    expect(await shared.list('')).toEqual(['a']);
    expect(await shared.get('a')).toEqual(bytes(1));
    await cached.reload();
    expect(await cached.list('')).toEqual(['a']);
    await writer.batch([{ key: 'a', value: undefined }]);
    // Deleted by another writer: still listed until a reload, but reads as missing.
    expect(await cached.list('')).toEqual(['a']);
    expect(await cached.get('a')).toBeUndefined();
    expect(await shared.list('')).toEqual([]);
  });

  it('lets several shared writers of one folder see each other at once', async () => {
    const writers = await Promise.all(
      [0, 1, 2].map(() => directoryStores(dir, { shared: true }).open('registry')),
    );
    await Promise.all(
      writers.map((store, w) =>
        Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            store.batch([
              { key: `w${w}/${i}`, value: bytes(w, i) },
              { key: `all/${w}-${i}`, value: bytes(w) },
            ]),
          ),
        ),
      ),
    );
    for (const store of writers) {
      expect(await store.list('all/')).toHaveLength(30);
      expect(await store.get('w2/9')).toEqual(bytes(2, 9));
    }
  });

  it('skips what a sync service or a person left in the folder, and clears temp files', async () => {
    const store = await directoryStores(dir).open('spaces/x');
    await store.batch([{ key: 'seg', value: bytes(1) }]);
    await store.putVersion(id(2), bytes(2));
    await store.close();
    const entries = join(dir, 'spaces', 'x', 'entries.d');
    await writeFile(join(entries, 'seg (conflicted copy 2026-12-02).minca'), 'x');
    await writeFile(join(entries, 'seg.sync-conflict-20261202-143000-7ERY2XS.minca'), 'x');
    await writeFile(join(entries, '.DS_Store'), 'x');
    await writeFile(join(entries, 'seg.minca.0f8fad5b-d9cb-469f-a165-70867728950e.tmp'), 'x');
    await writeFile(join(dir, 'spaces', 'x', 'versions.d', '00', 'not-a-version.minca'), 'x');
    const again = await directoryStores(dir).open('spaces/x');
    expect(await again.list('')).toEqual(['seg']);
    expect(await again.get('seg')).toEqual(bytes(1));
    expect(await again.getVersion(id(2))).toEqual(bytes(2));
    expect((await readdir(entries)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('applies a whole journal a crash left, and skips a torn one, losing nothing else', async () => {
    const problems: MincaError[] = [];
    const open = () => directoryStores(dir, { onProblem: (p) => problems.push(p) });
    const store = await open().open('spaces/j');
    await store.batch([
      { key: 'kept', value: bytes(1) },
      { key: 'old', value: bytes(2) },
    ]);
    await store.putVersion(id(3), bytes(3));
    await store.close();
    const journals = join(dir, 'spaces', 'j', 'journal.d');
    // A crash after the commit point: the journal is there, nothing applied yet.
    const whole = await encodeJournal([
      { kind: 'put', key: 'new/ünï', value: bytes(9, 9) },
      { kind: 'delete', key: 'old' },
      { kind: 'deleteVersion', id: id(3) },
    ]);
    await writeFile(join(journals, '01890000-0000-7000-8000-000000000001.minca'), whole);
    await writeFile(
      join(journals, '01890000-0000-7000-8000-000000000002.minca'),
      whole.subarray(0, whole.length - 5),
    );
    await writeFile(join(journals, '01890000-0000-7000-8000-000000000003.minca'), 'garbage');
    const again = await open().open('spaces/j');
    expect(await again.list('')).toEqual(['kept', 'new/ünï']);
    expect(await again.get('new/ünï')).toEqual(bytes(9, 9));
    expect(await again.get('kept')).toEqual(bytes(1));
    expect(await again.getVersion(id(3))).toBeUndefined();
    expect(problems.map((p) => p.code)).toEqual(['malformed', 'malformed']);
    expect(problems[0]!.message).toMatch(/journal\.d\/01890000-0000-7000-8000-000000000002\.minca/);
    expect(await readdir(journals)).toEqual([]);
  });

  it('keeps long, unicode and case-different keys apart across a reopen', async () => {
    const keys = ['Key', 'KEY', 'key', 'con', 'CON', 'a/'.repeat(30), '語'.repeat(300), '\uffff'];
    const store = await directoryStores(dir).open('spaces/k');
    await store.batch(keys.map((key, i) => ({ key, value: bytes(i) })));
    const again = await directoryStores(dir).open('spaces/k');
    expect(await again.list('')).toEqual([...keys].sort());
    for (const [i, key] of keys.entries()) expect(await again.get(key)).toEqual(bytes(i));
    for (const path of await tree(dir)) {
      for (const name of path.split('/')) expect(Buffer.byteLength(name)).toBeLessThan(255);
    }
    // Read from disk, a prefix ending inside a long part finds it across its `.more` folders.
    const shared = await directoryStores(dir, { shared: true }).open('spaces/k');
    expect(await shared.list('語'.repeat(150))).toEqual(['語'.repeat(300)]);
    expect(await shared.list('a/a/')).toEqual(['a/'.repeat(30)]);
    expect(await shared.list('K')).toEqual(['KEY', 'Key']);
  });

  it('removes a folder with the last entry in it', async () => {
    const store = await directoryStores(dir).open('spaces/f');
    await store.batch([
      { key: 'f/x/0', value: bytes(0) },
      { key: 'f/x/1', value: bytes(1) },
    ]);
    await store.batch([
      { key: 'f/x/0', value: undefined },
      { key: 'f/x/1', value: undefined },
    ]);
    expect(await readdir(join(dir, 'spaces', 'f', 'entries.d'))).toEqual([]);
  });

  it('refuses bad input with typed errors, and closed stores with closed', async () => {
    const stores = directoryStores(dir, { bodyCache: new LruBodyCache(4) });
    expect(stores.bodyCache).toBeInstanceOf(LruBodyCache);
    for (const path of ['', '/a', 'a/', 'a//b', 'a b', 'é', 'a:b']) {
      expect(await codeOf(stores.open(path)), path).toBe('invalid_name');
    }
    // `..` is in the path grammar, and is only a name here: it stays inside the folder.
    await (await stores.open('../x')).batch([{ key: 'k', value: bytes(1) }]);
    expect(await readdir(dir)).toEqual(['_-002e_-002e']);
    const store = await stores.open('spaces/a');
    expect(await stores.open('spaces/a')).toBe(store);
    expect(await codeOf(store.putVersion('ABC', bytes(1)))).toBe('TypeError');
    expect(await codeOf(store.putVersion(id(1), [1] as unknown as Uint8Array))).toBe('TypeError');
    expect(await codeOf(store.batch([{ key: 1 as unknown as string, value: bytes(1) }]))).toBe(
      'TypeError',
    );
    expect(await store.getVersion('not-an-id')).toBeUndefined();
    await store.close();
    expect(await codeOf(store.get('k'))).toBe('closed');
    expect(await codeOf(store.batch([]))).toBe('closed');
    await stores.close!();
    expect(await codeOf(stores.open('spaces/a'))).toBe('closed');
    expect(() => directoryStores(42 as unknown as string)).toThrow(TypeError);
  });

  it('reports a folder it cannot write as storage, keeping what was stored', async () => {
    const store = await directoryStores(dir).open('spaces/s');
    await store.batch([{ key: 'a', value: bytes(1) }]);
    // A file where the entries' folder `b` must go.
    await writeFile(join(dir, 'spaces', 's', 'entries.d', 'b'), 'in the way');
    expect(await codeOf(store.batch([{ key: 'b/c', value: bytes(2) }]))).toBe('storage');
    expect(await store.get('a')).toEqual(bytes(1));
    expect(await readFile(join(dir, 'spaces', 's', 'entries.d', 'a.minca'))).toEqual(
      Buffer.from([1]),
    );
  });
});
