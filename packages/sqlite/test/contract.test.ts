import { randomKey, type StoreFactory, sealedStores } from '@minca/core';
import { runRecordsTests, runStorageAdapterTests } from '@minca/core/testing';
import { type SqliteStores, sqliteStores } from '../src/index.ts';
import { TempDir } from './temp-db.ts';

/** A file in a temp dir; `reopen` closes the connection and opens a new one, as a restart does. */
function onDisk(wrap: (stores: SqliteStores) => StoreFactory) {
  return async () => {
    const dir = new TempDir();
    let db = dir.open();
    return {
      factory: wrap(sqliteStores(db)),
      reopen: async () => {
        db.close();
        db = dir.open();
        return wrap(sqliteStores(db));
      },
      teardown: async () => dir.dispose(),
    };
  };
}

runStorageAdapterTests(
  'sqliteStores (better-sqlite3, file)',
  onDisk((stores) => stores),
  { large: true },
);

const key = randomKey();
runStorageAdapterTests(
  'sealedStores over sqliteStores',
  onDisk((stores) => sealedStores(stores, key)),
  { large: true },
);

// A node's records over SQLite, kept across a restart on a new connection.
runRecordsTests(
  'sqliteStores',
  onDisk((stores) => stores),
);
