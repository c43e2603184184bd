import { join } from 'node:path';
import { randomKey, type StoreFactory, sealedStores } from '@minca/core';
import { runBlobStoreTests, runStorageAdapterTests } from '@minca/core/testing';
import { folderPath } from '../src/file-names.ts';
import { folderSpacesStore } from '../src/folder-spaces-store.ts';
import { createDirectoryBlobStore, directoryStores, nodeFolder } from '../src/node.ts';
import { SyncedFolderAdapter } from '../src/synced-folder-adapter.ts';
import { tempDir } from './temp-dir.ts';

runStorageAdapterTests(
  'directoryStores',
  async () => {
    const { dir, teardown } = await tempDir();
    return { factory: directoryStores(dir), reopen: async () => directoryStores(dir), teardown };
  },
  { large: true },
);

runStorageAdapterTests('directoryStores, shared, without fsync', async () => {
  const { dir, teardown } = await tempDir();
  const open = () => directoryStores(dir, { shared: true, sync: false });
  return { factory: open(), reopen: async () => open(), teardown };
});

runStorageAdapterTests('sealedStores over directoryStores', async () => {
  const { dir, teardown } = await tempDir();
  const key = randomKey();
  const open = () => sealedStores(directoryStores(dir, { sync: false }), key);
  return { factory: open(), reopen: async () => open(), teardown };
});

runBlobStoreTests('createDirectoryBlobStore', async () => {
  const { dir, teardown } = await tempDir();
  return { store: createDirectoryBlobStore(dir), teardown };
});

/** A factory of synced folder stores, as folderStores keeps its registry (before sealing). */
function syncedStores(dir: string): StoreFactory {
  const local = directoryStores(join(dir, 'local'), { sync: false });
  const fs = nodeFolder(join(dir, 'folder'));
  return {
    open: async (path) =>
      SyncedFolderAdapter.open(fs, folderPath(path), path, await local.open(`j/${path}`), {
        sync: false,
        onProblem: (problem) => {
          throw problem;
        },
      }),
    close: async () => {
      await local.close?.();
    },
  };
}

runStorageAdapterTests('a data folder’s synced store (the registry, unsealed)', async () => {
  const { dir, teardown } = await tempDir();
  return { factory: syncedStores(dir), reopen: async () => syncedStores(dir), teardown };
});

runStorageAdapterTests(
  'sealedStores over synced folder stores (folderStores’ registry)',
  async () => {
    const { dir, teardown } = await tempDir();
    const key = randomKey();
    const open = () => sealedStores(syncedStores(dir), key);
    return { factory: open(), reopen: async () => open(), teardown };
  },
);

runBlobStoreTests('a data folder’s spaces (folderSpacesStore)', async () => {
  const { dir, teardown } = await tempDir();
  return { store: folderSpacesStore(nodeFolder(dir), { sync: false }), teardown };
});
