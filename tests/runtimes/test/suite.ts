/**
 * What runs on each real runtime (Node 24's `node:sqlite`, Bun's `bun:sqlite`): the storage
 * adapter and records suites of `@minca/core/testing` over a connection of that runtime's own
 * driver, on a file, reopened on a new connection as a restart does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runRecordsTests, runStorageAdapterTests } from '@minca/core/testing';
import { type SqliteDatabase, sqliteStores } from '@minca/sqlite';

/** A connection of the runtime's driver. */
export interface Connection extends SqliteDatabase {
  close(): void;
}

export function runDriverSuites(runtime: string, open: (file: string) => Connection): void {
  const onDisk = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'minca-sqlite-runtime-'));
    const file = join(dir, 'node.sqlite');
    let db = open(file);
    return {
      factory: sqliteStores(db),
      reopen: async () => {
        db.close();
        db = open(file);
        return sqliteStores(db);
      },
      teardown: async () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
  runStorageAdapterTests(`sqliteStores (${runtime}, file)`, onDisk, { large: true });
  runRecordsTests(`sqliteStores (${runtime})`, onDisk);
}

/** Runs `example` with a fresh temp folder as the working directory, as the page's example runs. */
export async function inTempFolder(example: () => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'minca-sqlite-example-'));
  const before = process.cwd();
  process.chdir(dir);
  try {
    await example();
  } finally {
    process.chdir(before);
    rmSync(dir, { recursive: true, force: true });
  }
}
