/**
 * Every SQL statement the stores run, prepared once per factory and shared by its stores (the
 * store is a parameter). Only statements are kept between calls, never rows.
 */
import { MincaError } from '@minca/core';
import {
  bindBytes,
  getRow,
  type Row,
  readBytes,
  readCount,
  type SqliteDatabase,
  type SqliteStatement,
} from './driver.js';
import type { KeyRange } from './key-order.js';
import { type VersionRows, versionRows } from './version-rows.js';

/** The SELECT of a prefix range of entries: everything, from a bound, or between two bounds. */
function rangeSql(columns: string) {
  const select = `SELECT ${columns} FROM minca_entries WHERE store = ?`;
  return {
    all: `${select} ORDER BY key`,
    from: `${select} AND key >= ? ORDER BY key`,
    between: `${select} AND key >= ? AND key < ? ORDER BY key`,
  };
}

/**
 * The bytes of a store's entries and of its versions' bodies (`bodies`, from `VersionRows`).
 * length() of a BLOB reads its size from the record header, not its overflow pages.
 */
function sizeSql(bodies: string): string {
  return `SELECT
      (SELECT coalesce(sum(length(CAST(key AS BLOB)) + length(value)), 0)
         FROM minca_entries WHERE store = ?)
    + ${bodies} AS bytes`;
}

/** Every statement's SQL, by what it does (exported for query-plan tests). */
export const SQL = {
  findStore: 'SELECT id FROM minca_stores WHERE path = ?',
  addStore: 'INSERT OR IGNORE INTO minca_stores (path) VALUES (?)',
  getEntry: 'SELECT value FROM minca_entries WHERE store = ? AND key = ?',
  putEntry: `INSERT INTO minca_entries (store, key, value) VALUES (?, ?, ?)
    ON CONFLICT (store, key) DO UPDATE SET value = excluded.value`,
  deleteEntry: 'DELETE FROM minca_entries WHERE store = ? AND key = ?',
  keys: rangeSql('key'),
  count: {
    all: 'SELECT count(*) AS n FROM minca_entries WHERE store = ?',
    from: 'SELECT count(*) AS n FROM minca_entries WHERE store = ? AND key >= ?',
    between: 'SELECT count(*) AS n FROM minca_entries WHERE store = ? AND key >= ? AND key < ?',
  },
  entries: rangeSql('key, value'),
  // The files nothing names (spec 05 §16.6.4), in one statement: each `f/<id>/list` (71
  // characters) with no `y/<id>/<rest>` whose `x/<rest>` is there. Every lookup is a range or
  // point read of the (store, key) primary key; `substr(y.key, 68)` is `<rest>`.
  unnamedFiles: `SELECT substr(f.key, 3, 64) AS id FROM minca_entries AS f
    WHERE f.store = ? AND f.key >= 'f/' AND f.key < 'f0'
      AND length(f.key) = 71 AND substr(f.key, 67) = '/list'
      AND NOT EXISTS (
        SELECT 1 FROM minca_entries AS y
        WHERE y.store = f.store
          AND y.key >= 'y/' || substr(f.key, 3, 64) || '/'
          AND y.key < 'y/' || substr(f.key, 3, 64) || '0'
          AND EXISTS (SELECT 1 FROM minca_entries AS x
            WHERE x.store = y.store AND x.key = 'x/' || substr(y.key, 68)))
    ORDER BY f.key`,
  // A savepoint nests inside a transaction the app may have open on the same connection,
  // and is a transaction of its own otherwise.
  begin: 'SAVEPOINT minca_write',
  release: 'RELEASE minca_write',
  rollback: 'ROLLBACK TO minca_write',
} as const;

interface RangeStatements {
  all: SqliteStatement;
  from: SqliteStatement;
  between: SqliteStatement;
}

function rangeStatements(db: SqliteDatabase, sql: ReturnType<typeof rangeSql>): RangeStatements {
  return { all: db.prepare(sql.all), from: db.prepare(sql.from), between: db.prepare(sql.between) };
}

function rangeRows(statements: RangeStatements, store: number, range: KeyRange): Row[] {
  let rows: unknown[];
  if (range.from === '') rows = statements.all.all(store);
  else if (range.to === undefined) rows = statements.from.all(store, range.from);
  else rows = statements.between.all(store, range.from, range.to);
  return rows as Row[];
}

function readKey(row: Row): string {
  if (typeof row.key !== 'string') throw new MincaError('corrupt', 'an entry key is not TEXT');
  return row.key;
}

export class Queries {
  readonly #findStore: SqliteStatement;
  readonly #addStore: SqliteStatement;
  readonly #getEntry: SqliteStatement;
  readonly #putEntry: SqliteStatement;
  readonly #deleteEntry: SqliteStatement;
  readonly #keys: RangeStatements;
  readonly #count: RangeStatements;
  readonly #entries: RangeStatements;
  /** Version bodies, found by their ids, in the statements of the database's schema. */
  readonly versions: VersionRows;
  readonly #size: SqliteStatement;
  readonly #unnamedFiles: SqliteStatement;
  readonly #begin: SqliteStatement;
  readonly #release: SqliteStatement;
  readonly #rollback: SqliteStatement;

  /** `schema`: the one the database holds (see `prepareDatabase`). */
  constructor(db: SqliteDatabase, schema: number) {
    this.#findStore = db.prepare(SQL.findStore);
    this.#addStore = db.prepare(SQL.addStore);
    this.#getEntry = db.prepare(SQL.getEntry);
    this.#putEntry = db.prepare(SQL.putEntry);
    this.#deleteEntry = db.prepare(SQL.deleteEntry);
    this.#keys = rangeStatements(db, SQL.keys);
    this.#count = rangeStatements(db, SQL.count);
    this.#entries = rangeStatements(db, SQL.entries);
    this.versions = versionRows(db, schema);
    this.#size = db.prepare(sizeSql(this.versions.bodyBytes.sql));
    this.#unnamedFiles = db.prepare(SQL.unnamedFiles);
    this.#begin = db.prepare(SQL.begin);
    this.#release = db.prepare(SQL.release);
    this.#rollback = db.prepare(SQL.rollback);
  }

  /** The id of the store at `path`, made on first use. */
  storeId(path: string): number {
    let row = getRow(this.#findStore, path);
    if (row === undefined) {
      this.#addStore.run(path);
      row = getRow(this.#findStore, path);
    }
    return readCount(row?.id, `the id of store ${path}`);
  }

  /** The id of the store at `path`, or `undefined` if it was never opened. */
  findStore(path: string): number | undefined {
    const row = getRow(this.#findStore, path);
    return row === undefined ? undefined : readCount(row.id, `the id of store ${path}`);
  }

  /** Runs `write` in one transaction: all of it lands, or none. */
  transaction(write: () => void): void {
    this.#begin.run();
    try {
      write();
      this.#release.run();
    } catch (error) {
      try {
        this.#rollback.run();
        this.#release.run();
      } catch {
        // The write's own error is the one worth reporting.
      }
      throw error;
    }
  }

  getEntry(store: number, key: string): Uint8Array | undefined {
    const row = getRow(this.#getEntry, store, key);
    return row === undefined ? undefined : readBytes(row.value, `the value of ${key}`);
  }

  putEntry(store: number, key: string, value: Uint8Array): void {
    this.#putEntry.run(store, key, bindBytes(value));
  }

  deleteEntry(store: number, key: string): void {
    this.#deleteEntry.run(store, key);
  }

  /** Keys in `range`, in SQLite's (code point) order. */
  keys(store: number, range: KeyRange): string[] {
    return rangeRows(this.#keys, store, range).map(readKey);
  }

  /** How many keys are in `range`. */
  count(store: number, range: KeyRange): number {
    return readCount(rangeRows(this.#count, store, range)[0]?.n, 'a count of keys');
  }

  /** Entries in `range`, in SQLite's (code point) order. */
  entries(store: number, range: KeyRange): Array<[string, Uint8Array]> {
    return rangeRows(this.#entries, store, range).map((row) => {
      const key = readKey(row);
      return [key, readBytes(row.value, `the value of ${key}`)];
    });
  }

  /** The ids of the files with a list that nothing names, sorted. */
  unnamedFiles(store: number): string[] {
    return (this.#unnamedFiles.all(store) as Row[]).map((row) => {
      if (typeof row.id !== 'string') throw new MincaError('corrupt', 'a file id is not TEXT');
      return row.id;
    });
  }

  /** Bytes of the store's keys (UTF-8), values and version bodies. */
  size(store: number): number {
    const params = [store, ...this.versions.bodyBytes.params(store)];
    return readCount(getRow(this.#size, ...params)?.bytes, 'the size of a store');
  }
}
