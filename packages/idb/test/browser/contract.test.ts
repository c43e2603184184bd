import { runStorageAdapterTests } from '@minca/core/testing';
import { indexedDBStores } from '../../src/index.ts';
import { deleteDatabases } from './databases.ts';

// The same conformance suite as in Node, over Chromium's own IndexedDB. Each case has its own
// prefix; reopen is a new factory over the same databases, as after a page reload.
runStorageAdapterTests(
  'indexedDBStores in Chromium',
  async () => {
    const prefix = `minca-test-${crypto.randomUUID()}`;
    return {
      factory: indexedDBStores(prefix),
      reopen: async () => indexedDBStores(prefix),
      teardown: () => deleteDatabases(prefix),
    };
  },
  { large: true },
);
