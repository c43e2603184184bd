/**
 * The tables minca keeps in a SQLite database, and setting a connection up for them. Tables are
 * prefixed `minca_` and the schema version lives in `minca_meta`, not `PRAGMA user_version`, so
 * an app may keep its own tables in the same database. Layout: spec 05, "SQLite stores".
 */
import { MincaError } from '@minca/core';
import { driverError, getRow, isReadOnly, type SqliteDatabase } from './driver.js';

/** The schema this code writes, and the newest it reads. */
export const SCHEMA_VERSION = 4;

/** Hex digits of a version id that make its `prefix`: 44 bits, an integer SQLite keeps in 6 bytes. */
export const PREFIX_DIGITS = 11;

/**
 * A version id's `prefix` column in `minca_versions`: its first {@link PREFIX_DIGITS} hex digits
 * as an integer (spec 05 §5.7), for SQL of your own over the same table.
 */
export const idPrefix = (id: string): number => Number.parseInt(id.slice(0, PREFIX_DIGITS), 16);

/** {@link idPrefix} in SQL, of the TEXT column `id`: for moving older schemas' versions. */
const PREFIX_SQL = Array.from(
  { length: PREFIX_DIGITS },
  (_, k) =>
    `((instr('0123456789abcdef', substr(id, ${k + 1}, 1)) - 1) << ${4 * (PREFIX_DIGITS - 1 - k)})`,
).join(' | ');

/**
 * Bodies are a few hundred bytes, too large for a WITHOUT ROWID table (SQLite advises rows
 * under a twentieth of a page): keyed by their hashed ids (schema 1), each insert split and
 * rewrote a leaf full of bodies. Appended by rowid, a commit writes its bodies to a few new
 * pages at the end. Only the ids' index is scattered, since ids are hashes: it holds 44 bits of
 * an id (schema 3) rather than all 64 characters (schema 2), and it is in two parts, recent and
 * settled (schema 4, version-rows.ts). Two ids may share a prefix; every lookup compares the
 * whole id too.
 */
const VERSIONS_TABLE = `CREATE TABLE minca_versions (
    n INTEGER PRIMARY KEY, store INTEGER NOT NULL, prefix INTEGER NOT NULL, id TEXT NOT NULL,
    body BLOB NOT NULL) STRICT`;
const idsTable = (name: string) => `CREATE TABLE ${name} (
    store INTEGER NOT NULL, prefix INTEGER NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (store, prefix, n)) STRICT, WITHOUT ROWID`;

/**
 * Schema 4's ids of the versions there are, all settled: from schema 3's index, or from the
 * versions themselves when they were just moved.
 */
const settleEveryId = (from: 1 | 2 | 3) => [
  idsTable('minca_version_ids'),
  idsTable('minca_recent_ids'),
  `INSERT INTO minca_version_ids (store, prefix, n)
    SELECT store, prefix, n FROM minca_versions ORDER BY store, prefix, n`,
  ...(from === 3 ? ['DROP INDEX minca_versions_prefix'] : []),
  `INSERT INTO minca_meta (name, value)
    VALUES ('settled', (SELECT coalesce(max(n), 0) FROM minca_versions))`,
  `UPDATE minca_meta SET value = ${SCHEMA_VERSION} WHERE name = 'schema'`,
];

const CREATE = [
  `CREATE TABLE minca_meta (name TEXT PRIMARY KEY, value ANY) STRICT, WITHOUT ROWID`,
  `CREATE TABLE minca_stores (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE) STRICT`,
  // (store, key) is the primary key of a WITHOUT ROWID table: a prefix listing is one range
  // scan of that b-tree, and a row is its key and value together.
  `CREATE TABLE minca_entries (
    store INTEGER NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (store, key)) STRICT, WITHOUT ROWID`,
  VERSIONS_TABLE,
  idsTable('minca_version_ids'),
  idsTable('minca_recent_ids'),
  `INSERT INTO minca_meta (name, value) VALUES ('settled', 0)`,
  `INSERT INTO minca_meta (name, value) VALUES ('schema', ${SCHEMA_VERSION})`,
];

/**
 * Schema 1, 2 or 3 to 4. Schema 1's and 2's versions move, as they are, into the table of
 * schema 3, in the order they lay (schema 1's by id, schema 2's by rowid); the old table goes
 * with its index. Then every id is settled.
 */
const upgrade = (from: 1 | 2 | 3) => [
  ...(from === 3
    ? []
    : [
        `ALTER TABLE minca_versions RENAME TO minca_versions_${from}`,
        VERSIONS_TABLE,
        `INSERT INTO minca_versions (store, prefix, id, body)
          SELECT store, ${PREFIX_SQL}, id, body FROM minca_versions_${from}
          ORDER BY ${from === 1 ? 'store, id' : 'n'}`,
        `DROP TABLE minca_versions_${from}`,
      ]),
  ...settleEveryId(from),
];

/** Pages of write-ahead log between automatic checkpoints. */
const WAL_CHECKPOINT_PAGES = 4096;
/** SQLite's page size when nobody chose one. */
const SQLITE_DEFAULT_PAGE_BYTES = 4096;
/**
 * The page size `sqliteStores` gives a database that has no page yet. An app that sets its
 * connection up before (WAL mode writes the first page) may set it first to have the same.
 *
 * A commit of a page of versions dirties a leaf for each of their index entries (spread out by
 * record id) and a few appended to: in pages of 8 KiB, taking 100,000 versions in, 286 a
 * commit, cost 17% less CPU than in 4 KiB ones, while a put alone cost the same (and writes
 * 40 KB of log, not 23). 16 KiB saved 3% more on the first and cost puts a fifth. Spec 05
 * "SQLite stores".
 */
export const SQLITE_PAGE_BYTES = 8192;
/** The connection's page cache, KiB. */
const CACHE_KIB = 4096;

/** How {@link prepareDatabase} tunes the connection. */
export interface ConnectionSettings {
  /** Set WAL mode, `synchronous` and a busy timeout (else the connection is left as given). */
  configure: boolean;
  /** `synchronous` in WAL mode. */
  synchronous: 'normal' | 'full';
}

/** A pragma's value, or `undefined` when the connection refuses it. */
function pragma(db: SqliteDatabase, sql: string): unknown {
  try {
    const row = getRow(db.prepare(`PRAGMA ${sql}`));
    return row === undefined ? undefined : Object.values(row)[0];
  } catch (error) {
    const mapped = driverError(error, `PRAGMA ${sql}`);
    // A damaged file is worth failing for; a pragma the connection won't take (read-only, in a
    // transaction) is not.
    if (mapped.code === 'corrupt') throw mapped;
    return undefined;
  }
}

function tune(db: SqliteDatabase, settings: ConnectionSettings): void {
  // Only a database with no page yet takes a page size, and WAL mode writes its first: so this
  // comes first. A size the connection was given before is the app's, and kept.
  const fresh = Number(pragma(db, 'page_count')) === 0;
  if (fresh && Number(pragma(db, 'page_size')) === SQLITE_DEFAULT_PAGE_BYTES) {
    pragma(db, `page_size = ${SQLITE_PAGE_BYTES}`);
  }
  // WAL: readers don't block the writer, and a commit is one append (survives a killed process).
  const mode = pragma(db, 'journal_mode = WAL');
  // In WAL, NORMAL syncs at checkpoints only: a power cut may drop the last commits but never
  // tears the database. In other journal modes NORMAL is not safe, so it is left alone.
  if (typeof mode === 'string' && mode.toLowerCase() === 'wal') {
    pragma(db, `synchronous = ${settings.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  }
  // Another connection (a reader, a checkpoint) waits rather than failing at once.
  if (pragma(db, 'busy_timeout') === 0) pragma(db, 'busy_timeout = 5000');
  // A store's keys are hashes, so each version written dirties a page of its own in the index
  // entries and the recent ids: a commit of a page of versions writes hundreds of pages to the
  // log. Checkpointing every 1,000 pages (SQLite's default) copied and synced them after nearly
  // every commit; every 4,096 (32 MiB of log in 8 KiB pages), a page written by several commits
  // is copied once.
  pragma(db, `wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  // The page cache is the connection's own memory: 4 MiB, not some drivers' 16 MiB (a joining
  // device's RSS), since the rows it would hold are hashed apart and the OS caches the file.
  pragma(db, `cache_size = -${CACHE_KIB}`);
}

/** The schema version a database holds, or `undefined` for one without minca's tables. */
function schemaVersion(db: SqliteDatabase): number | undefined {
  const table = getRow(
    db.prepare(`SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'minca_meta'`),
  );
  if (table === undefined) return undefined;
  const value = getRow(db.prepare(`SELECT value FROM minca_meta WHERE name = 'schema'`))?.value;
  const version = typeof value === 'bigint' ? Number(value) : value;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    throw new MincaError('corrupt', `minca_meta holds no valid schema version (${String(value)})`);
  }
  return version;
}

/** Runs `write` in a savepoint of its own: all of it, or nothing. */
function inSavepoint(db: SqliteDatabase, write: () => void): void {
  db.exec('SAVEPOINT minca_schema');
  try {
    write();
    db.exec('RELEASE minca_schema');
  } catch (error) {
    try {
      db.exec('ROLLBACK TO minca_schema');
      db.exec('RELEASE minca_schema');
    } catch {
      // The first error is the one worth reporting.
    }
    throw error;
  }
}

/**
 * Makes `db` ready for minca's stores: reads it (so a file that is not a database fails here,
 * with `corrupt`), tunes it, and creates the tables in one transaction when they are missing,
 * or moves schema 1, 2 or 3 to 4 in one; returns the schema it then holds. A schema newer than
 * {@link SCHEMA_VERSION} is refused with `storage`, touching nothing.
 */
export function prepareDatabase(db: SqliteDatabase, settings: ConnectionSettings): number {
  try {
    const encoding = getRow(db.prepare('PRAGMA encoding'))?.encoding;
    // Range scans assume BINARY collation compares UTF-8; in a UTF-16 database it doesn't.
    if (encoding !== 'UTF-8') {
      throw new MincaError(
        'storage',
        `the database's text encoding is ${String(encoding)}, not UTF-8`,
      );
    }
    const version = schemaVersion(db);
    if (version !== undefined && version > SCHEMA_VERSION) {
      throw new MincaError(
        'storage',
        `the database holds minca schema ${version}, newer than this version reads (${SCHEMA_VERSION})`,
      );
    }
    if (settings.configure) tune(db, settings);
    // Read again inside the transaction: another connection may have just made or moved them.
    if (version === undefined) {
      inSavepoint(db, () => {
        if (schemaVersion(db) === undefined) for (const sql of CREATE) db.exec(sql);
      });
    } else if (version === 1 || version === 2 || version === 3) {
      try {
        inSavepoint(db, () => {
          if (schemaVersion(db) === version) for (const sql of upgrade(version)) db.exec(sql);
        });
      } catch (error) {
        // Older schemas have read statements of their own (version-rows.ts): a read-only file
        // stays as it is.
        if (!isReadOnly(error)) throw error;
        return version;
      }
    }
    return SCHEMA_VERSION;
  } catch (error) {
    throw driverError(error, 'opening the SQLite stores');
  }
}
