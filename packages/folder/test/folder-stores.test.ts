import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  createNode,
  encodeCbor,
  hashId,
  isMincaError,
  type MincaError,
  type MincaNode,
  randomKey,
} from '@minca/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { folderPath, keyPath } from '../src/file-names.ts';
import { frame, unframe } from '../src/frame.ts';
import {
  directoryStores,
  folderStores,
  localStatePaths,
  nodeFolder,
  reconcileFolder,
} from '../src/node.ts';
import { SyncedFolderAdapter } from '../src/synced-folder-adapter.ts';
import { tempDir } from './temp-dir.ts';

let dir: string;
let teardown: () => Promise<void>;
beforeEach(async () => ({ dir, teardown } = await tempDir()));
afterEach(() => teardown());

const bytes = (...values: number[]) => new Uint8Array(values);

/** Every file and folder under `root`, relative to it. */
async function tree(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true })).map(String).sort();
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isMincaError(error) ? error.code : (error as Error).name;
  }
  return undefined;
}

describe('folderStores', () => {
  it('refuses to start without local, or with a bad key, basePath or interval', () => {
    const local = directoryStores(join(dir, 'local'));
    const localKey = randomKey();
    const refused = (() => {
      try {
        // @ts-expect-error: local is required
        folderStores(dir, { localKey });
      } catch (error) {
        return error as MincaError;
      }
    })();
    expect(refused?.code).toBe('invalid_input');
    expect(refused?.message).toMatch(/local/);
    expect(codeOf(() => folderStores(dir, { localKey: bytes(1, 2), local }))).toBe('invalid_input');
    expect(codeOf(() => folderStores(dir, { localKey, local, basePath: '../x' }))).toBe(
      'invalid_name',
    );
    expect(codeOf(() => folderStores(dir, { localKey, local, watchIntervalMs: -1 }))).toBe(
      'invalid_input',
    );
    expect(codeOf(() => folderStores(dir, { localKey, local, basePath: 'accounts/k3' }))).toBe(
      undefined,
    );
  });

  it('mirrors to <basePath>/spaces with a 1 s push and the watch interval as pull', async () => {
    const local = directoryStores(join(dir, 'local'));
    const stores = folderStores(join(dir, 'pod'), {
      basePath: 'accounts/k3',
      localKey: randomKey(),
      local,
      watchIntervalMs: 0,
    });
    expect(stores.mirrors).toHaveLength(1);
    expect(stores.mirrors[0]!.pushDelayMs).toBe(1000);
    expect(stores.mirrors[0]!.pullIntervalMs).toBe(0);
    await stores.mirrors[0]!.store.put('x/seg-1', bytes(7));
    expect(await tree(join(dir, 'pod'))).toEqual([
      'accounts',
      'accounts/k3',
      'accounts/k3/spaces',
      'accounts/k3/spaces/x',
      'accounts/k3/spaces/x/seg-1.minca',
    ]);
    expect(folderStores(dir, { localKey: randomKey(), local }).mirrors[0]!.pullIntervalMs).toBe(
      2000,
    );
  });

  it('keeps the registry sealed in the folder, one 0600 file per entry, and the rest local', async () => {
    const local = directoryStores(join(dir, 'local'));
    const localKey = randomKey();
    const stores = folderStores(join(dir, 'pod'), { basePath: 'a', localKey, local });
    const node = await createNode({ stores });
    const space = await node.spaces.create();
    await node.records.put(space.id, 'app.note', { text: 'hello' });
    await node.close();
    await stores.close();

    const pod = await tree(join(dir, 'pod'));
    const files = pod.filter((p) => p.endsWith('.minca'));
    // One file per registry entry (the node key, the space, its sharing index); the space's
    // records as a segment.
    const reopened = folderStores(join(dir, 'pod'), { basePath: 'a', localKey, local });
    const entries = await (await reopened.open('registry')).list('');
    await reopened.close();
    expect(entries).toEqual(expect.arrayContaining(['key/node', `space/${space.id}`]));
    const registry = files.filter((p) => p.startsWith('a/registry/entries.d/'));
    const segments = files.filter((p) => p.startsWith(`a/spaces/${space.id}/`));
    expect(registry).toHaveLength(entries.length);
    expect(segments).toHaveLength(1);
    expect(files).toHaveLength(entries.length + 1);
    expect(pod.some((p) => p.includes('journal'))).toBe(false);
    // Sealed: neither the space id nor the key names show, and no value holds them in clear.
    expect(registry.join('\n')).not.toContain(space.id);
    // No part of a file's name is an entry's name in clear (a sealed name may hold any letters,
    // "key" among them, by chance).
    const parts = registry.flatMap((p) => p.slice('a/registry/entries.d/'.length).split(/[/.]/));
    for (const word of ['key', 'node', 'space', 'sharing']) expect(parts).not.toContain(word);
    for (const file of files) {
      const content = Buffer.from(await readFile(join(dir, 'pod', file)));
      expect(content.includes(Buffer.from('hello'))).toBe(false);
      if (file.startsWith('a/registry/')) {
        expect(content.includes(Buffer.from(space.id))).toBe(false);
      }
    }
    // The space's store is this device's own.
    expect(await tree(join(dir, 'local'))).toContain(`spaces/${space.id}/versions.d`);

    for (const root of ['pod', 'local']) {
      for (const path of await tree(join(dir, root))) {
        const { mode } = await stat(join(dir, root, path));
        const isDir = (mode & 0o170000) === 0o040000;
        expect((mode & 0o777).toString(8), `${root}/${path}`).toBe(isDir ? '700' : '600');
      }
    }

    // Another device (its own local stores) reads the registry from the folder, with the key.
    const other = folderStores(join(dir, 'pod'), {
      basePath: 'a',
      localKey,
      local: directoryStores(join(dir, 'local-2')),
    });
    const second = await createNode({ stores: other });
    expect(await second.spaces.list()).toEqual([space.id]);
    await second.close();
    await other.close();

    // Under another key the registry's files don't open: typed errors, nothing overwritten.
    const wrong = folderStores(join(dir, 'pod'), {
      basePath: 'a',
      localKey: randomKey(),
      local: directoryStores(join(dir, 'local-3')),
    });
    const failure = await createNode({ stores: wrong }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isMincaError(failure, 'corrupt')).toBe(true);
    await wrong.close();
    const after = await tree(join(dir, 'pod'));
    expect(after).toEqual(pod);
  });
});

describe('the folder’s files', () => {
  it('are replaced atomically: a reader never sees one half-written', async () => {
    const local = directoryStores(join(dir, 'local'), { sync: false });
    const stores = folderStores(join(dir, 'pod'), { localKey: randomKey(), local, sync: false });
    const registry = await stores.open('registry');
    const big = (n: number) => new Uint8Array(256 * 1024).fill(n);
    await registry.batch([{ key: 'space/x', value: big(0) }]);
    const [file] = (await tree(join(dir, 'pod', 'registry', 'entries.d'))).filter((p) =>
      p.endsWith('.minca'),
    );
    const path = join(dir, 'pod', 'registry', 'entries.d', file!);
    let writing = true;
    let reads = 0;
    const reader = (async () => {
      while (writing) {
        const value = unframe(new Uint8Array(await readFile(path)));
        // Sealed: the value plus its nonce and tag.
        expect(value?.length).toBe(256 * 1024 + 40);
        reads++;
      }
    })();
    for (let n = 1; n <= 60; n++) {
      await registry.batch([{ key: 'space/x', value: big(n) }]);
      await stores.spaces.put('s/w/0000000001-0000000000000000', big(n));
    }
    writing = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect((await registry.get('space/x'))?.[0]).toBe(60);
    // No temp file is left behind.
    expect((await tree(join(dir, 'pod'))).filter((p) => p.endsWith('.tmp'))).toEqual([]);
    await registry.close?.();
    await stores.close();
  });
});

describe('the folder’s synced store', () => {
  const problems: MincaError[] = [];
  const options = { sync: false, onProblem: (p: MincaError) => problems.push(p) };
  const folder = () => nodeFolder(join(dir, 'pod'));
  const root = folderPath('registry');
  const entryFile = (key: string) => join(dir, 'pod', 'registry', 'entries.d', ...keyPath(key));
  beforeEach(() => {
    problems.length = 0;
  });

  it('replays a batch a crash cut short, but never over a newer write', async () => {
    const journal = await directoryStores(join(dir, 'local')).open('j');
    const store = await SyncedFolderAdapter.open(folder(), root, 'registry', journal, options);
    await store.batch([{ key: 'a', value: bytes(1) }]);
    await store.close();
    // This device journaled a = 2, b = 3 and crashed before writing either file; meanwhile
    // another device wrote a = 9.
    const before = hashId(frame(bytes(1))).slice(0, 16);
    const ops = [
      [0, 'a', bytes(2), before],
      [0, 'b', bytes(3), null],
    ];
    const journal2 = await directoryStores(join(dir, 'local')).open('j');
    await journal2.batch([
      { key: 'j/01900000-0000-7000-8000-000000000000', value: encodeCbor(ops) },
    ]);
    const otherDevice = await SyncedFolderAdapter.open(
      folder(),
      root,
      'registry',
      await directoryStores(join(dir, 'local-other')).open('j'),
      options,
    );
    await otherDevice.batch([{ key: 'a', value: bytes(9) }]);

    const reopened = await SyncedFolderAdapter.open(folder(), root, 'registry', journal2, options);
    expect(await reopened.get('a')).toEqual(bytes(9));
    expect(await reopened.get('b')).toEqual(bytes(3));
    expect(await journal2.list('j/')).toEqual([]);
    await reopened.close();
    await otherDevice.close();
  });

  it('reads a torn file as absent, or as its whole conflict copy, and lists both', async () => {
    const store = await SyncedFolderAdapter.open(
      folder(),
      root,
      'registry',
      await directoryStores(join(dir, 'local')).open('j'),
      options,
    );
    await store.batch([
      { key: 'space/x', value: bytes(1, 2, 3) },
      { key: 'space/y', value: bytes(4) },
    ]);
    const x = entryFile('space/x');
    const whole = await readFile(x);
    // A sync service halfway through copying the file in.
    await writeFile(x, whole.subarray(0, whole.length - 3));
    expect(await store.get('space/x')).toBeUndefined();
    expect(problems.map((p) => p.code)).toEqual(['malformed']);
    // Its conflict copies: Syncthing's and Dropbox's names, the greatest name whole.
    const folderOfX = join(x, '..');
    const stem = keyPath('space/x')
      .at(-1)!
      .replace(/\.minca$/, '');
    await writeFile(
      join(folderOfX, `${stem}.sync-conflict-20261202-101010-ABCDEFG.minca`),
      frame(bytes(7)),
    );
    await writeFile(
      join(folderOfX, `${stem} (Someone's conflicted copy 2026-12-02).minca`),
      frame(bytes(8)),
    );
    expect(await store.get('space/x')).toEqual(bytes(7));
    // A key held only in a conflict copy is found too.
    const stemZ = keyPath('space/z')
      .at(-1)!
      .replace(/\.minca$/, '');
    await writeFile(
      join(folderOfX, `${stemZ} (conflicted copy 2026-12-02).minca`),
      frame(bytes(5)),
    );
    expect(await store.list('space/')).toEqual(['space/x', 'space/y', 'space/z']);
    expect(await store.entries('space/')).toEqual([
      ['space/x', bytes(7)],
      ['space/y', bytes(4)],
      ['space/z', bytes(5)],
    ]);
    // Deleting a key removes its conflict copies, so none brings it back.
    await store.batch([
      { key: 'space/x', value: undefined },
      { key: 'space/z', value: undefined },
    ]);
    expect(await store.list('space/')).toEqual(['space/y']);
    expect(await readdir(folderOfX)).toEqual([keyPath('space/y').at(-1)]);
    // Stray files are never mistaken for entries.
    await writeFile(join(folderOfX, 'notes.txt'), 'hi');
    await mkdir(join(folderOfX, 'Extra'), { recursive: true });
    expect(await store.list('')).toEqual(['space/y']);
    await store.close();
  });
});

describe('local state', () => {
  it('is $MINCA_LOCAL or ~/.local/state/minca, then the home’s slot and the account', async () => {
    const home = join(dir, 'pod');
    const slot = createHash('sha256').update(resolve(home)).digest('hex').slice(0, 16);
    const fromEnv = await localStatePaths({
      home,
      accountId: 'k3x9q2',
      env: { MINCA_LOCAL: join(dir, 'state') },
    });
    expect(fromEnv).toEqual({
      base: join(dir, 'state'),
      account: join(dir, 'state', slot, 'k3x9q2'),
      stores: join(dir, 'state', slot, 'k3x9q2', 'stores'),
      writerKeys: join(dir, 'state', slot, 'k3x9q2', 'writer-keys'),
    });
    const byDefault = await localStatePaths({
      home,
      accountId: 'k3x9q2',
      env: {},
      userHome: join(dir, 'me'),
    });
    expect(byDefault.stores).toBe(
      join(dir, 'me', '.local', 'state', 'minca', slot, 'k3x9q2', 'stores'),
    );
    // The home is made absolute first: a relative path names the same slot.
    const relative = await localStatePaths({
      home: join(home, '..', 'pod'),
      accountId: 'k3x9q2',
      env: { MINCA_LOCAL: join(dir, 'state') },
    });
    expect(relative.stores).toBe(fromEnv.stores);
    for (const accountId of ['', '..', 'a/b', 'a\\b']) {
      await expect(localStatePaths({ home, accountId })).rejects.toThrow(TypeError);
    }
  });
});

describe('reconcileFolder', () => {
  it('lets a daemon find a command’s writes to the local stores', async () => {
    const localKey = randomKey();
    const open = () =>
      folderStores(join(dir, 'pod'), { localKey, local: directoryStores(join(dir, 'local')) });
    const daemonStores = open();
    const daemon = await createNode({ stores: daemonStores });
    const space = await daemon.spaces.create();
    const heard: string[][] = [];
    await daemon.records.subscribe(space.id, (change) => heard.push(change.collections));

    // A command: another process over the same local stores and folder.
    const commandStores = open();
    const command = await createNode({ stores: commandStores });
    await command.records.put(space.id, 'app.note', { text: 'from the command' });
    await command.close();
    await commandStores.close();

    expect(await daemon.records.list(space.id, 'app.note')).toEqual([]);
    expect(await reconcileFolder(daemon, daemonStores)).toEqual([space.id]);
    const notes = await daemon.records.list(space.id, 'app.note');
    expect(notes.map((n) => n.body)).toEqual([{ text: 'from the command' }]);
    await new Promise((r) => setTimeout(r, 0));
    expect(heard).toEqual([['app.note']]);
    // Nothing new: nothing changes, nobody is told.
    expect(await reconcileFolder(daemon, daemonStores)).toEqual([]);
    await daemon.close();
    await daemonStores.close();
  });
});

describe('folderStores’ timing', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** True once `check` is, trying for `ms` of real time (immediates stay real). */
  async function settled(check: () => Promise<boolean>, ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (await check()) return true;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return check();
  }

  it('pushes 1 s after a change, and pulls when a space opens and every watchIntervalMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const localKey = randomKey();
    const open = (name: string, watchIntervalMs?: number) =>
      folderStores(join(dir, 'pod'), {
        localKey,
        local: directoryStores(join(dir, name), { sync: false }),
        sync: false,
        ...(watchIntervalMs !== undefined ? { watchIntervalMs } : {}),
      });
    const a = await createNode({ stores: open('a') });
    const space = await a.spaces.create();
    const first = await a.records.put(space.id, 'app.note', { n: 1 });
    await vi.advanceTimersByTimeAsync(1000);
    // Two more devices on the same folder: the default pull, and none.
    const b = await createNode({ stores: open('b') });
    const c = await createNode({ stores: open('c', 0) });
    await b.spaces.open(space.id);
    await c.spaces.open(space.id);
    // Both pull when the space opens.
    const has = (node: MincaNode, id: string) => async () =>
      (await node.records.get(space.id, 'app.note', id)) !== undefined;
    expect(await settled(has(b, first.id), 10_000)).toBe(true);
    expect(await settled(has(c, first.id), 10_000)).toBe(true);

    const second = await a.records.put(space.id, 'app.note', { n: 2 });
    const segments = async () => (await segmentFiles()).length;
    const before = await segments();
    await vi.advanceTimersByTimeAsync(900);
    expect(await settled(async () => (await segments()) > before, 200)).toBe(false);
    await vi.advanceTimersByTimeAsync(100); // a pushes
    expect(await settled(async () => (await segments()) > before, 10_000)).toBe(true);
    await vi.advanceTimersByTimeAsync(2000); // b pulls on its period
    expect(await settled(has(b, second.id), 10_000)).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000); // c never does
    expect(await settled(has(c, second.id), 200)).toBe(false);
    await c.spaces.syncMirrors(space.id);
    expect(await has(c, second.id)()).toBe(true);
    for (const node of [a, b, c]) await node.close();
  });

  /** The segment files in the folder. */
  async function segmentFiles(): Promise<string[]> {
    return (await tree(join(dir, 'pod', 'spaces'))).filter((p) => p.endsWith('.minca'));
  }
});
