// The same node code, unchanged, over every storage adapter: each runs the records suite, also
// under the sealing wrapper.
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomKey, type StoreFactory, sealedStores } from '@minca/core';
import { runRecordsTests } from '@minca/core/testing';
import { directoryStores } from '@minca/folder';
import { indexedDBStores } from '@minca/idb';
import { memoryStores } from '@minca/memory';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { IDBFactory } from 'fake-indexeddb';

interface Backend {
  name: string;
  setup(): {
    factory: StoreFactory;
    reopen?: () => Promise<StoreFactory>;
    teardown?: () => Promise<void>;
  };
}

/** A fresh temp directory, removed by `teardown`. */
function tempDir(): { dir: string; teardown: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'minca-records-'));
  return { dir, teardown: async () => rmSync(dir, { recursive: true, force: true }) };
}

const backends: Backend[] = [
  { name: 'memory', setup: () => ({ factory: memoryStores() }) },
  {
    name: 'directory',
    setup: () => {
      const { dir, teardown } = tempDir();
      return { factory: directoryStores(dir), reopen: async () => directoryStores(dir), teardown };
    },
  },
  {
    name: 'sqlite (better-sqlite3)',
    setup: () => {
      const { dir, teardown } = tempDir();
      let db = new Database(join(dir, 'node.sqlite'));
      return {
        factory: sqliteStores(db),
        reopen: async () => {
          db.close();
          db = new Database(join(dir, 'node.sqlite'));
          return sqliteStores(db);
        },
        teardown: async () => {
          db.close();
          await teardown();
        },
      };
    },
  },
  {
    name: 'IndexedDB (fake-indexeddb)',
    setup: () => {
      const indexedDB = new IDBFactory();
      return {
        factory: indexedDBStores('minca-test', { indexedDB }),
        reopen: async () => indexedDBStores('minca-test', { indexedDB }),
      };
    },
  },
];

for (const backend of backends) {
  runRecordsTests(backend.name, async () => backend.setup());
  runRecordsTests(`${backend.name}, sealed`, async () => {
    const key = randomKey();
    const inner = backend.setup();
    return {
      factory: sealedStores(inner.factory, key),
      ...(inner.reopen ? { reopen: async () => sealedStores(await inner.reopen!(), key) } : {}),
      ...(inner.teardown ? { teardown: inner.teardown } : {}),
    };
  });
}
