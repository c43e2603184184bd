import 'fake-indexeddb/auto';
import { randomKey, sealedStores } from '@minca/core';
import { runStorageAdapterTests } from '@minca/core/testing';
import { IDBFactory } from 'fake-indexeddb';
import { indexedDBStores } from '../src/index.ts';

// The sealing wrapper over IndexedDB, as a browser keeps an account's stores: the same suite,
// with only ciphertext reaching the databases.
runStorageAdapterTests('sealedStores over indexedDBStores (fake-indexeddb)', async () => {
  const indexedDB = new IDBFactory();
  const key = randomKey();
  return {
    factory: sealedStores(indexedDBStores('minca-test', { indexedDB }), key),
    reopen: async () => sealedStores(indexedDBStores('minca-test', { indexedDB }), key),
  };
});
