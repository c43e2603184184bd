/**
 * The crash test's writer, run as a child process (bundled by `build-writer.ts`): commits
 * versions and entries through `writeCommit` in a loop and prints `ack <n>` once each has
 * landed, until it is killed.
 *
 * argv: the better-sqlite3 module path, the database file, the run number.
 */
import { createRequire } from 'node:module';
import { writeCommit } from '@minca/core';
import type BetterSqlite3 from 'better-sqlite3';
import { sqliteStores } from '../../src/index.ts';
import { CRASH_STORE, commitFor } from './plan.ts';

const [driverPath, file, run] = process.argv.slice(2);
const Database = createRequire(import.meta.url)(driverPath!) as typeof BetterSqlite3;
const stores = sqliteStores(new Database(file!));
const adapter = await stores.open(CRASH_STORE);
process.stdout.write('ready\n');
for (let n = 0; ; n++) {
  await writeCommit(adapter, commitFor(Number(run), n));
  process.stdout.write(`ack ${n}\n`);
}
