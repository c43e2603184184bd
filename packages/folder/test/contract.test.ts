import { randomKey, sealedStores } from '@minca/core';
import { runBlobStoreTests, runStorageAdapterTests } from '@minca/core/testing';
import { createDirectoryBlobStore, directoryStores } from '../src/index.ts';
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
