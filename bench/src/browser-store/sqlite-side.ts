// The SQLite side of the IndexedDB/SQLite benchmark, in Node: @minca/sqlite over better-sqlite3
// on a file, and raw better-sqlite3 statements on the same tables as the baseline.
import type { Commit } from '@minca/core';
import { idPrefix, sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { type Conn, connThrough, RAW_VERSIONS, rawVersionKey } from './jobs.js';

export const STORE_PATH = 'spaces/bench';

/** A connection through @minca/sqlite: a new database connection, factory and store. */
export async function adapterConn(file: string): Promise<Conn> {
  const db = new Database(file);
  const stores = sqliteStores(db);
  const adapter = await stores.open(STORE_PATH);
  return connThrough(adapter, async () => {
    await adapter.close!();
    await stores.close!();
    db.close();
  });
}

/** The end of a prefix's range: its last character plus one (the prefixes here are ASCII). */
const after = (prefix: string) =>
  prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/** Raw better-sqlite3 on the same file and tables, with the pragmas sqliteStores sets. */
export async function rawConn(file: string): Promise<Conn> {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const store = (
    db.prepare('SELECT id FROM minca_stores WHERE path = ?').get(STORE_PATH) as { id: number }
  ).id;
  const getEntry = db
    .prepare('SELECT value FROM minca_entries WHERE store = ? AND key = ?')
    .pluck();
  const range = db
    .prepare(
      'SELECT key, value FROM minca_entries WHERE store = ? AND key >= ? AND key < ? ORDER BY key',
    )
    .raw();
  const count = db
    .prepare('SELECT count(*) FROM minca_entries WHERE store = ? AND key >= ? AND key < ?')
    .pluck();
  const getBody = db.prepare(RAW_VERSIONS.get).pluck();
  const deleteBody = db.prepare(RAW_VERSIONS.delete);
  const insertBody = db.prepare(RAW_VERSIONS.insert);
  const addRecent = db.prepare(RAW_VERSIONS.addRecent);
  const putEntry = db.prepare(
    'INSERT OR REPLACE INTO minca_entries (store, key, value) VALUES (?, ?, ?)',
  );
  const write = db.transaction((commit: Commit) => {
    for (const [id, body] of commit.versions) {
      deleteBody.run(store, idPrefix(id), id);
      insertBody.run(store, idPrefix(id), id, body);
      addRecent.run(store, idPrefix(id));
    }
    for (const { key, value } of commit.entries) putEntry.run(store, key, value!);
  });
  return {
    get: async (key) => getEntry.get(store, key) as Uint8Array | undefined,
    entries: async (prefix) =>
      range.all(store, prefix, after(prefix)) as Array<[string, Uint8Array]>,
    count: async (prefix) => count.get(store, prefix, after(prefix)) as number,
    getVersions: async (ids) =>
      ids.map((id) => getBody.get(...rawVersionKey(store, id)) as Uint8Array | undefined),
    commit: async (commit) => void write(commit),
    async close() {
      db.close();
    },
  };
}
