/**
 * The page the Chromium test loads: runs the storage adapter and blob store conformance suites
 * over the handle seam, on real OPFS folders (`navigator.storage.getDirectory()`).
 */

import { createNode, isMincaError, randomKey, type StoreFactory } from '@minca/core';
import { runBlobStoreTests, runStorageAdapterTests } from '@minca/core/testing';
import { indexedDBStores } from '@minca/idb';
import { folderPath } from '../../src/file-names.ts';
import { type FolderFs, removeAndPrune, subFolder } from '../../src/folder-fs.ts';
import { handleFolder } from '../../src/handle-folder.ts';
import {
  browserDataFolderStores,
  createDirectoryBlobStore,
  directoryStores,
  forgetDataFolder,
  HANDLE_DATABASE,
  hasFolderPicker,
  PICKER_OPTIONS,
  pickDataFolder,
  rememberedDataFolder,
} from '../../src/index.ts';
import { SyncedFolderAdapter } from '../../src/synced-folder-adapter.ts';
import { registered } from './vitest-shim.ts';

let folders = 0;

/** A fresh OPFS folder, and a teardown removing it. */
async function opfsFolder() {
  const root = await navigator.storage.getDirectory();
  const name = `check-${Date.now()}-${folders++}`;
  const dir = await root.getDirectoryHandle(name, { create: true });
  return { dir, teardown: () => root.removeEntry(name, { recursive: true }) };
}

runStorageAdapterTests('directoryStores over OPFS', async () => {
  const { dir, teardown } = await opfsFolder();
  return { factory: directoryStores(dir), reopen: async () => directoryStores(dir), teardown };
});

runStorageAdapterTests('directoryStores over OPFS, shared', async () => {
  const { dir, teardown } = await opfsFolder();
  const open = () => directoryStores(dir, { shared: true });
  return { factory: open(), reopen: async () => open(), teardown };
});

runStorageAdapterTests('a data folder’s synced store over OPFS', async () => {
  const { dir, teardown } = await opfsFolder();
  const open = (): StoreFactory => {
    const journal = directoryStores(dir, { sync: false });
    const fs = subFolder(handleFolder(dir), ['folder']);
    return {
      open: async (path) =>
        SyncedFolderAdapter.open(fs, folderPath(path), path, await journal.open(`j/${path}`), {
          sync: false,
          onProblem: () => {},
        }),
    };
  };
  return { factory: open(), reopen: async () => open(), teardown };
});

runBlobStoreTests('createDirectoryBlobStore over OPFS', async () => {
  const { dir, teardown } = await opfsFolder();
  return { store: createDirectoryBlobStore(dir), teardown };
});

const one = new Uint8Array([1]);

/**
 * Forty rounds of `during(round)` while removeAndPrune takes `a/b`'s one file and the folders
 * it leaves empty (Chromium locks a folder while removeEntry prunes it), then `after(round)`.
 */
async function whilePruning(
  fs: FolderFs,
  during: (round: number) => Promise<void>,
  after: (round: number) => Promise<void>,
): Promise<void> {
  for (let round = 0; round < 40; round++) {
    await fs.writeFile(['a', 'b', 'old'], one, { sync: false });
    await Promise.all([removeAndPrune(fs, ['a', 'b', 'old'], 0), during(round)]);
    await after(round);
  }
}

/** A check of the handle seam over a fresh OPFS folder, removed after. */
function seamCheck(name: string, run: (fs: FolderFs) => Promise<void>): void {
  registered.push({
    name: `handle seam › ${name}`,
    run: async () => {
      const { dir, teardown } = await opfsFolder();
      try {
        await run(handleFolder(dir));
      } finally {
        await teardown();
      }
    },
  });
}

// A write into a folder being pruned must still land.
seamCheck('a write into a folder being pruned lands', (fs) =>
  whilePruning(
    fs,
    (round) => fs.writeFile(['a', 'b', `new-${round}`], one, { sync: false }),
    async (round) => {
      const back = await fs.readFile(['a', 'b', `new-${round}`]);
      if (back?.[0] !== 1) throw new Error(`round ${round}: the write did not land`);
      await removeAndPrune(fs, ['a', 'b', `new-${round}`], 0);
    },
  ),
);

// A folder made while removeEntry prunes its path is there afterwards; a file where one of its
// folders should be is a storage error, not a folder made in silence.
seamCheck(
  'a folder made while its path is pruned is there, a file in the way fails',
  async (fs) => {
    await whilePruning(
      fs,
      (round) => fs.makeFolder(['a', 'b', `c-${round}`]),
      async (round) => {
        const listed = await fs.list(['a', 'b', `c-${round}`]);
        check(listed?.length === 0, `round ${round}: the folder is ${JSON.stringify(listed)}`);
        await fs.removeEmptyFolder(['a', 'b', `c-${round}`]);
      },
    );
    await fs.writeFile(['file'], one, { sync: false });
    const refused = await fs.makeFolder(['file', 'below']).then(
      () => undefined,
      (error: unknown) => error,
    );
    check(
      isMincaError(refused) && refused.code === 'storage',
      `a file in the way gave ${String(refused)}`,
    );
  },
);

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

// The picker needs a person's click, which no headless page has: the check passes one that
// answers with an OPFS folder, and sees what it was asked. Handles, IndexedDB, the permission
// query and the stores are Chromium's own.
registered.push({
  name: 'data folder › picked, remembered, permitted, and its stores under minca-pod:',
  run: async () => {
    const { dir, teardown } = await opfsFolder();
    try {
      await forgetDataFolder();
      check((await rememberedDataFolder()) === undefined, 'nothing remembered at first');
      check(hasFolderPicker(), 'Chromium has showDirectoryPicker');
      const asked: unknown[] = [];
      const picked = await pickDataFolder({
        showDirectoryPicker: async (options) => {
          asked.push(options);
          return dir;
        },
      });
      check(picked === dir, 'the picked folder is returned');
      check(
        JSON.stringify(asked) === JSON.stringify([PICKER_OPTIONS]) &&
          PICKER_OPTIONS.id === 'minca-pod' &&
          PICKER_OPTIONS.mode === 'readwrite' &&
          PICKER_OPTIONS.startIn === 'documents',
        `the picker was asked ${JSON.stringify(asked)}`,
      );
      const names = (await indexedDB.databases()).map((d) => d.name);
      check(names.includes(HANDLE_DATABASE), `databases: ${names.join(', ')}`);
      // A later visit: the handle comes back from IndexedDB, and OPFS needs no prompt.
      const remembered = await rememberedDataFolder();
      check(remembered !== undefined, 'the folder is remembered');
      check(await remembered.handle.isSameEntry(dir), 'the same folder comes back');
      check(remembered.permission === 'granted', `permission: ${remembered.permission}`);

      const dataPath = `accounts/check${Date.now()}/stores`;
      const localKey = randomKey();
      const open = () =>
        browserDataFolderStores({ dataPath, localKey, indexedDBStores, folder: remembered.handle });
      const node = await createNode({ stores: open() });
      const space = await node.spaces.create();
      await node.records.put(space.id, 'app.note', { text: 'in the folder' });
      await node.close();
      const pods = (await indexedDB.databases()).map((d) => d.name ?? '');
      const prefix = `minca-pod:${dataPath.replaceAll('/', ':')}`;
      check(
        pods.includes(`${prefix}:spaces:${space.id}`),
        `the space's own store is under ${prefix}: ${pods.join(', ')}`,
      );
      // Another browser profile: fresh IndexedDB stores, the same folder, the whole account.
      const other = await createNode({
        stores: browserDataFolderStores({
          dataPath: `${dataPath}-other`,
          localKey,
          indexedDBStores,
          folder: remembered.handle,
        }),
      });
      await other.spaces.syncMirrors(space.id);
      const notes = await other.records.list<{ text: string }>(space.id, 'app.note');
      check(notes[0]?.body.text === 'in the folder', `read back: ${JSON.stringify(notes)}`);
      await other.close();

      // No picker: IndexedDB alone, under the same prefix.
      const plain = await createNode({
        stores: browserDataFolderStores({ dataPath: `${dataPath}-idb`, localKey, indexedDBStores }),
      });
      const kept = await plain.spaces.create();
      await plain.close();
      const all = (await indexedDB.databases()).map((d) => d.name ?? '');
      check(all.includes(`${prefix}-idb:registry`), 'the registry in IndexedDB');
      check(all.includes(`${prefix}-idb:spaces:${kept.id}`), 'the space too');
      await forgetDataFolder();
      check((await rememberedDataFolder()) === undefined, 'forgotten');
    } finally {
      await teardown();
    }
  },
});

/** One line per check: its name, and the error it failed with. */
export interface CheckResult {
  name: string;
  ms: number;
  error?: string;
}

/**
 * Left out here: OPFS writes a file in about 9 ms in this Chromium, so 10,000 keys take minutes.
 * The Node run covers it over the same adapter code; the seam is what this page tests.
 */
const SLOW = / › 10,000 keys$/;

async function runChecks(): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of registered) {
    if (SLOW.test(check.name)) continue;
    const start = performance.now();
    try {
      await check.run();
      results.push({ name: check.name, ms: performance.now() - start });
    } catch (error) {
      const message = String((error as Error)?.stack ?? error);
      results.push({ name: check.name, ms: performance.now() - start, error: message });
    }
    const result = results.at(-1)!;
    console.log(
      `${result.error ? `failed: ${result.error}` : 'passed'} ${check.name} ${Math.round(result.ms)} ms`,
    );
  }
  return results;
}

(globalThis as { runFolderChecks?: () => Promise<CheckResult[]> }).runFolderChecks = runChecks;
