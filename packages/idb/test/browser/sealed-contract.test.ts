import { randomKey, sealedStores } from '@minca/core';
import { runStorageAdapterTests } from '@minca/core/testing';
import { indexedDBStores } from '../../src/index.ts';
import { deleteDatabases } from './databases.ts';

runStorageAdapterTests('sealedStores over indexedDBStores in Chromium', async () => {
  const prefix = `minca-test-${crypto.randomUUID()}`;
  const key = randomKey();
  return {
    factory: sealedStores(indexedDBStores(prefix), key),
    reopen: async () => sealedStores(indexedDBStores(prefix), key),
    teardown: () => deleteDatabases(prefix),
  };
});
