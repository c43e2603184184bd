import 'fake-indexeddb/auto';
import { runStorageAdapterTests } from '@minca/core/testing';
import { IDBFactory } from 'fake-indexeddb';
import { indexedDBStores } from '../src/index.ts';

// Each case gets its own fake IDBFactory; reopen is a new factory over the same one, as after a
// page reload.
runStorageAdapterTests(
  'indexedDBStores over fake-indexeddb',
  async () => {
    const indexedDB = new IDBFactory();
    return {
      factory: indexedDBStores('minca-test', { indexedDB }),
      reopen: async () => indexedDBStores('minca-test', { indexedDB }),
    };
  },
  { large: true },
);
