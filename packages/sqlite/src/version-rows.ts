/**
 * Where version bodies are kept and how one is found by its id, in each schema (spec 05 §5.7).
 *
 * Bodies are appended to `minca_versions` by rowid `n`. Ids are hashes, so an index of them takes
 * every insert on a random leaf, and a commit writes each leaf it touched to the log: with one
 * index of a million versions, a joining device wrote 7.5 KB to disk per version it took in,
 * most of it the same index pages again and again. Schema 4 keeps two: new ids go into the small
 * `minca_recent_ids`, whose few leaves a commit rewrites, and once enough have gathered they are
 * moved into `minca_version_ids` in one sorted pass, which writes each of its leaves once for
 * thousands of ids. A lookup searches both. `minca_meta`'s `settled` is the greatest `n` moved.
 *
 * A put replaces a body of the same id, but looks for one among the recent ids only: at a
 * million versions, looking through the settled ones at every put took a seventh of a joining
 * device's main thread, nearly always to find nothing (the core puts only versions it does not
 * hold). A settled body put again is replaced when the recent ids move, in the same sorted pass
 * (each settled leaf read once for many); until then reads take the newer row.
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
import { idPrefix } from './schema.js';

/**
 * Recent ids are moved once there are more than a thirty-second of the settled ones, kept
 * between these bounds. Measured on 1,000,000 versions put 500 a commit: a few thousand recent
 * ids cost a merge rewriting the settled index too often; over 32,768 a commit of recent ids
 * touches nearly every one of their leaves.
 */
const SETTLE_MIN = 8192;
const SETTLE_MAX = 32768;

/** The versions a (store, prefix) finds in schema 4: recent ones first, then settled. */
const BY_PREFIX = `n IN (
    SELECT n FROM minca_recent_ids WHERE store = ? AND prefix = ?
    UNION ALL SELECT n FROM minca_version_ids WHERE store = ? AND prefix = ?)`;

/** Settled rows (`s`, `b`) of an id put again since (`r`, `a`), found from the recent ids. */
const REPLACED = `FROM minca_recent_ids AS r CROSS JOIN minca_version_ids AS s
      ON s.store = r.store AND s.prefix = r.prefix
    CROSS JOIN minca_versions AS a ON a.n = r.n
    CROSS JOIN minca_versions AS b ON b.n = s.n
    WHERE b.id = a.id`;

/** The statements on versions, by schema (exported for query-plan tests). */
export const VERSION_SQL = {
  // The newest row: a settled body put again has two until the recent ids move.
  get: `SELECT body FROM minca_versions WHERE ${BY_PREFIX} AND id = ? ORDER BY n DESC LIMIT 1`,
  find: `SELECT n FROM minca_versions WHERE ${BY_PREFIX} AND id = ?`,
  findRecent: `SELECT v.n AS n FROM minca_recent_ids AS r
    JOIN minca_versions AS v ON v.n = r.n WHERE r.store = ? AND r.prefix = ? AND v.id = ?`,
  insert: 'INSERT INTO minca_versions (store, prefix, id, body) VALUES (?, ?, ?, ?)',
  addRecent: 'INSERT INTO minca_recent_ids (store, prefix, n) VALUES (?, ?, last_insert_rowid())',
  deleteRow: 'DELETE FROM minca_versions WHERE n = ?',
  deleteRecent: 'DELETE FROM minca_recent_ids WHERE store = ? AND prefix = ? AND n = ?',
  deleteSettled: 'DELETE FROM minca_version_ids WHERE store = ? AND prefix = ? AND n = ?',
  // A store's rowids come sorted out of the IN list, so its rows are read in the order they lie.
  ofStore: `n IN (SELECT n FROM minca_version_ids WHERE store = ?
    UNION ALL SELECT n FROM minca_recent_ids WHERE store = ?)`,
  settled: `SELECT value AS n FROM minca_meta WHERE name = 'settled'`,
  last: 'SELECT coalesce(max(n), 0) AS n FROM minca_versions',
  // Settled rows of an id put again since, in the recent ids' order (CROSS JOIN keeps it): the
  // settled index is read in order, once.
  replaced: `SELECT s.store AS store, s.prefix AS prefix, s.n AS n ${REPLACED}`,
  // The bytes of a store's settled rows of an id put again since: counted once, not twice.
  replacedBytes: `SELECT coalesce(sum(length(b.body)), 0) ${REPLACED} AND r.store = ?`,
  // The recent ids come out in their primary key's order: the settled index is written in order.
  settle: `INSERT INTO minca_version_ids (store, prefix, n)
    SELECT store, prefix, n FROM minca_recent_ids ORDER BY store, prefix, n`,
  clearRecent: 'DELETE FROM minca_recent_ids',
  markSettled: `UPDATE minca_meta SET value = ? WHERE name = 'settled'`,
  /** Schema 3, left as it was by a read-only connection: one index of (store, prefix). */
  schema3: {
    get: 'SELECT body FROM minca_versions WHERE store = ? AND prefix = ? AND id = ?',
    ofStore: 'n IN (SELECT n FROM minca_versions WHERE store = ?)',
  },
  /** Schemas 1 and 2: a unique (store, id); schema 1's versions have no rowid. */
  schema1and2: {
    get: 'SELECT body FROM minca_versions WHERE store = ? AND id = ?',
    ofStore: 'store = ?',
  },
} as const;

/** Version bodies of the stores in one database, by store id and version id. */
export interface VersionRows {
  get(store: number, id: string): Uint8Array | undefined;
  /** Puts or replaces a body: several statements, so run it in a transaction. */
  put(store: number, id: string, body: Uint8Array): void;
  /** Several statements, so run it in a transaction. */
  delete(store: number, id: string): void;
  /** After versions were put, in the same transaction: moves recent ids once enough gathered. */
  settle(): void;
  /**
   * The SQL of the bytes of a store's version bodies, each version once (a settled body put
   * again has two rows until the recent ids move), and its parameters for `store`.
   */
  readonly bodyBytes: { sql: string; params: (store: number) => number[] };
}

/** The bytes of the bodies of the rows `ofStore` chooses. length() reads a BLOB's header only. */
const bodyBytesSql = (ofStore: string) =>
  `(SELECT coalesce(sum(length(body)), 0) FROM minca_versions WHERE ${ofStore})`;

/** The version rows of a database holding `schema` (4, or an older one opened read-only). */
export function versionRows(db: SqliteDatabase, schema: number): VersionRows {
  if (schema >= 4) return new TwoLevelRows(db);
  const sql = schema === 3 ? VERSION_SQL.schema3 : VERSION_SQL.schema1and2;
  const get = db.prepare(sql.get);
  const key = (store: number, id: string) =>
    schema === 3 ? [store, idPrefix(id), id] : [store, id];
  // Only a read-only connection leaves an older schema as it is (prepareDatabase).
  const readOnly = () => {
    throw new MincaError('storage', `the database is read-only, in minca schema ${schema}`);
  };
  return {
    get: (store, id) => bodyOf(getRow(get, ...key(store, id)), id),
    put: readOnly,
    delete: readOnly,
    settle: () => {},
    bodyBytes: { sql: bodyBytesSql(sql.ofStore), params: (store) => [store] },
  };
}

function bodyOf(row: Row | undefined, id: string): Uint8Array | undefined {
  return row === undefined ? undefined : readBytes(row.body, `the body of version ${id}`);
}

/** Schema 4's rows: recent and settled ids, see the top of this file. */
class TwoLevelRows implements VersionRows {
  readonly #get: SqliteStatement;
  readonly #find: SqliteStatement;
  readonly #findRecent: SqliteStatement;
  readonly #insert: SqliteStatement;
  readonly #addRecent: SqliteStatement;
  readonly #deleteRow: SqliteStatement;
  readonly #deleteRecent: SqliteStatement;
  readonly #deleteSettled: SqliteStatement;
  readonly #settled: SqliteStatement;
  readonly #last: SqliteStatement;
  readonly #replaced: SqliteStatement;
  readonly #settle: SqliteStatement;
  readonly #clearRecent: SqliteStatement;
  readonly #markSettled: SqliteStatement;
  readonly bodyBytes = {
    sql: `${bodyBytesSql(VERSION_SQL.ofStore)} - (${VERSION_SQL.replacedBytes})`,
    params: (store: number) => [store, store, store],
  };

  constructor(db: SqliteDatabase) {
    this.#get = db.prepare(VERSION_SQL.get);
    this.#find = db.prepare(VERSION_SQL.find);
    this.#findRecent = db.prepare(VERSION_SQL.findRecent);
    this.#insert = db.prepare(VERSION_SQL.insert);
    this.#addRecent = db.prepare(VERSION_SQL.addRecent);
    this.#deleteRow = db.prepare(VERSION_SQL.deleteRow);
    this.#deleteRecent = db.prepare(VERSION_SQL.deleteRecent);
    this.#deleteSettled = db.prepare(VERSION_SQL.deleteSettled);
    this.#settled = db.prepare(VERSION_SQL.settled);
    this.#last = db.prepare(VERSION_SQL.last);
    this.#replaced = db.prepare(VERSION_SQL.replaced);
    this.#settle = db.prepare(VERSION_SQL.settle);
    this.#clearRecent = db.prepare(VERSION_SQL.clearRecent);
    this.#markSettled = db.prepare(VERSION_SQL.markSettled);
  }

  get(store: number, id: string): Uint8Array | undefined {
    const prefix = idPrefix(id);
    return bodyOf(getRow(this.#get, store, prefix, store, prefix, id), id);
  }

  put(store: number, id: string, body: Uint8Array): void {
    const prefix = idPrefix(id);
    for (const row of this.#findRecent.all(store, prefix, id) as Row[]) {
      const n = readCount(row.n, `the row of version ${id}`);
      this.#deleteRow.run(n);
      this.#deleteRecent.run(store, prefix, n);
    }
    this.#insert.run(store, prefix, id, bindBytes(body));
    this.#addRecent.run(store, prefix);
  }

  delete(store: number, id: string): void {
    const prefix = idPrefix(id);
    for (const row of this.#find.all(store, prefix, store, prefix, id) as Row[]) {
      const n = readCount(row.n, `the row of version ${id}`);
      this.#deleteRow.run(n);
      this.#deleteRecent.run(store, prefix, n);
      this.#deleteSettled.run(store, prefix, n);
    }
  }

  settle(): void {
    const settled = readCount(getRow(this.#settled)?.n, "minca_meta's settled");
    const last = readCount(getRow(this.#last)?.n, 'the last version row');
    const due = Math.min(SETTLE_MAX, Math.max(SETTLE_MIN, Math.floor(settled / 32)));
    if (last - settled < due) return;
    for (const row of this.#replaced.all() as Row[]) {
      const n = readCount(row.n, 'a replaced version row');
      this.#deleteRow.run(n);
      this.#deleteSettled.run(row.store, row.prefix, n);
    }
    this.#settle.run();
    this.#clearRecent.run();
    this.#markSettled.run(last);
  }
}
