/// <reference lib="webworker" />
// The third side of the IndexedDB/SQLite benchmark: @minca/sqlite over SQLite's own wasm build
// (@sqlite.org/sqlite-wasm) on OPFS, in a dedicated worker of the same page — the only place
// OPFS gives the synchronous file handles its "opfs-sahpool" VFS needs (not a SharedWorker,
// where the demo runs its node). The same jobs, beside raw statements on the same connection.

import type { Commit } from '@minca/core';
import { idPrefix, type SqliteDatabase, sqliteStores } from '@minca/sqlite';
import sqlite3InitModule from '@sqlite.org/sqlite-wasm';
import { fill } from './dataset.js';
import {
  type Conn,
  connThrough,
  type JobResult,
  RAW_VERSIONS,
  rawVersionKey,
  runJobs,
} from './jobs.js';

const FILE = '/bench.sqlite3';
const PATH = 'spaces/bench';

/** The part of sqlite-wasm's oo1 API used here. */
interface Stmt {
  bind(values: unknown[]): Stmt;
  step(): boolean;
  get(shape: unknown[]): unknown[];
  get(shape: object): Record<string, unknown>;
  reset(clearBindings?: boolean): Stmt;
}
interface Oo1Db {
  prepare(sql: string): Stmt;
  exec(sql: string): unknown;
  close(): void;
}
type Pool = { OpfsSAHPoolDb: new (file: string) => Oo1Db; wipeFiles(): Promise<void> };

function bound(stmt: Stmt, params: unknown[]): Stmt {
  stmt.reset(true);
  return params.length > 0 ? stmt.bind(params) : stmt;
}

/** The driver shape @minca/sqlite takes (`prepare` → run/get/all, `exec`), over oo1. */
function driver(db: Oo1Db): SqliteDatabase {
  return {
    prepare(sql) {
      const stmt = db.prepare(sql);
      return {
        run(...params) {
          bound(stmt, params).step();
          stmt.reset();
        },
        get(...params) {
          const row = bound(stmt, params).step() ? stmt.get({}) : undefined;
          stmt.reset();
          // This build omits UTF-16 (SQLITE_OMIT_UTF16), so its `PRAGMA encoding` answers no
          // row: every database it makes or reads is UTF-8, which is what the stores check.
          if (row === undefined && sql === 'PRAGMA encoding') return { encoding: 'UTF-8' };
          return row;
        },
        all(...params) {
          const rows: unknown[] = [];
          bound(stmt, params);
          while (stmt.step()) rows.push(stmt.get({}));
          stmt.reset();
          return rows;
        },
      };
    },
    exec: (sql) => db.exec(sql),
  };
}

/**
 * A connection as a serious user would set it up here: the pool's files take no locks anyway,
 * and exclusive locking lets SQLite keep a WAL without shared memory, which sqliteStores then
 * turns on (with `synchronous = NORMAL`), as it does on a disk.
 */
function tuned(db: Oo1Db): Oo1Db {
  db.exec('PRAGMA locking_mode = EXCLUSIVE');
  return db;
}

async function adapterOver(db: Oo1Db, own: boolean): Promise<Conn> {
  const stores = sqliteStores(driver(db));
  const adapter = await stores.open(PATH);
  return connThrough(adapter, async () => {
    await adapter.close!();
    if (own) db.close();
  });
}

const after = (prefix: string) =>
  prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/** Raw oo1 statements on the same tables. */
function rawOver(db: Oo1Db, own: boolean): Conn {
  const id = db.prepare('SELECT id FROM minca_stores WHERE path = ?').bind([PATH]);
  id.step();
  const store = id.get([])[0] as number;
  const getEntry = db.prepare('SELECT value FROM minca_entries WHERE store = ? AND key = ?');
  const range = db.prepare(
    'SELECT key, value FROM minca_entries WHERE store = ? AND key >= ? AND key < ? ORDER BY key',
  );
  const count = db.prepare(
    'SELECT count(*) FROM minca_entries WHERE store = ? AND key >= ? AND key < ?',
  );
  const getBody = db.prepare(RAW_VERSIONS.get);
  const deleteBody = db.prepare(RAW_VERSIONS.delete);
  const insertBody = db.prepare(RAW_VERSIONS.insert);
  const addRecent = db.prepare(RAW_VERSIONS.addRecent);
  const putEntry = db.prepare(
    'INSERT OR REPLACE INTO minca_entries (store, key, value) VALUES (?, ?, ?)',
  );
  const one = (stmt: Stmt, params: unknown[]) => {
    const value = bound(stmt, params).step() ? stmt.get([])[0] : undefined;
    stmt.reset();
    return value;
  };
  return {
    get: async (key) => one(getEntry, [store, key]) as Uint8Array | undefined,
    async entries(prefix) {
      const out: Array<[string, Uint8Array]> = [];
      bound(range, [store, prefix, after(prefix)]);
      while (range.step()) out.push(range.get([]) as [string, Uint8Array]);
      range.reset();
      return out;
    },
    count: async (prefix) => one(count, [store, prefix, after(prefix)]) as number,
    getVersions: async (ids) =>
      ids.map((id) => one(getBody, rawVersionKey(store, id)) as Uint8Array | undefined),
    async commit(commit: Commit) {
      db.exec('BEGIN');
      try {
        for (const [id, body] of commit.versions) {
          bound(deleteBody, [store, idPrefix(id), id]).step();
          bound(insertBody, [store, idPrefix(id), id, body]).step();
          bound(addRecent, [store, idPrefix(id)]).step();
        }
        for (const { key, value } of commit.entries) bound(putEntry, [store, key, value]).step();
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
    async close() {
      if (own) db.close();
    },
  };
}

export interface WasmResult {
  version: string;
  /** The journal mode the connection got. */
  journal: string;
  fillMs: number;
  jobs: JobResult[];
}

async function run(): Promise<WasmResult> {
  const sqlite3 = await sqlite3InitModule();
  const pool = (await sqlite3.installOpfsSAHPoolVfs({})) as unknown as Pool;
  await pool.wipeFiles();
  const start = performance.now();
  const first = tuned(new pool.OpfsSAHPoolDb(FILE));
  await fill(await sqliteStores(driver(first)).open(PATH));
  const mode = first.prepare('PRAGMA journal_mode');
  const journal = mode.step() ? String(mode.get([])[0]) : 'unknown';
  mode.reset();
  first.close();
  const fillMs = performance.now() - start;
  // One connection for every job but opening: the pool's files take no locks, so two
  // connections writing the same file could each trust a stale cache.
  let db: Oo1Db | undefined;
  const open = () => tuned(new pool.OpfsSAHPoolDb(FILE));
  const jobs = await runJobs(
    () => adapterOver(open(), true),
    async () => rawOver(open(), true),
    () => {},
    async () => {
      db = open();
      return [await adapterOver(db, false), rawOver(db, false)];
    },
  );
  db?.close();
  await pool.wipeFiles();
  return { version: sqlite3.version.libVersion, journal, fillMs, jobs };
}

self.onmessage = () => {
  run().then(
    (result) => self.postMessage({ result }),
    (error: unknown) => self.postMessage({ error: String((error as Error)?.stack ?? error) }),
  );
};
