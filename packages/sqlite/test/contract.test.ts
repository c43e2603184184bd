import { runStorageAdapterTests } from '@minca/core/testing';
import { sqliteStores } from '../src/index.ts';
import { TempDir } from './temp-db.ts';

// A file in a temp dir; `reopen` closes the connection and opens a new one, as a restart does.
runStorageAdapterTests(
  'sqliteStores (better-sqlite3, file)',
  async () => {
    const dir = new TempDir();
    let db = dir.open();
    return {
      factory: sqliteStores(db),
      reopen: async () => {
        db.close();
        db = dir.open();
        return sqliteStores(db);
      },
      teardown: async () => dir.dispose(),
    };
  },
  { large: true },
);
