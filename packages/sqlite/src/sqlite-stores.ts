/** `sqliteStores(db)`: every store of a node in one SQLite database, over any driver. */
import {
  type BodyCache,
  LruBodyCache,
  MincaError,
  type StorageAdapter,
  type StoreFactory,
} from '@minca/core';
import { driverError, type SqliteDatabase } from './driver.js';
import { Queries } from './queries.js';
import { prepareDatabase } from './schema.js';
import { SqliteAdapter } from './sqlite-adapter.js';

/** Bodies the stores of one SQLite factory keep in memory together: reading one again is cheap. */
export const SQLITE_BODY_CACHE = 4000;
/** Bytes of bodies those stores keep in memory together, at most. */
export const SQLITE_BODY_CACHE_BYTES = 16 * 1024 * 1024;

const PATH = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

/** Options of {@link sqliteStores}. */
export interface SqliteStoresOptions {
  /**
   * Tune the connection: WAL journal, `synchronous` (below), a 5 s busy timeout where none is
   * set, and pages of 8 KiB for a database that has none yet (unless the connection was given
   * a page size other than SQLite's 4 KiB). Default `true`; `false` leaves the connection as
   * given.
   */
  configure?: boolean;
  /**
   * `synchronous` in WAL mode. `'normal'` (default) syncs at checkpoints: a killed process
   * loses nothing, a power cut may lose the last commits, and neither tears the database.
   * `'full'` syncs every commit.
   */
  synchronous?: 'normal' | 'full';
}

/** The factory {@link sqliteStores} gives: stores by path, a shared body cache, and sizes. */
export interface SqliteStores extends StoreFactory {
  /**
   * One cache every store of this factory shares: {@link SQLITE_BODY_CACHE} bodies and
   * {@link SQLITE_BODY_CACHE_BYTES} bytes at most.
   */
  readonly bodyCache: BodyCache;
  /** The bytes the store at `path` takes: its keys (as UTF-8), values and version bodies. */
  size(path: string): Promise<number>;
}

function assertPath(path: unknown): asserts path is string {
  if (typeof path !== 'string' || !PATH.test(path)) {
    throw new MincaError(
      'invalid_name',
      `invalid store path ${JSON.stringify(String(path).slice(0, 80))}`,
    );
  }
}

/**
 * Keeps every store of a node in one SQLite database, on a connection you open and close:
 * `DatabaseSync` from `node:sqlite`, `Database` from `bun:sqlite`, or better-sqlite3's. Creates
 * minca's tables when missing (prefixed `minca_`, beside any of the app's own).
 *
 * @throws MincaError `corrupt` when the file is damaged or not a database, `storage` when it
 * holds a newer minca schema or the connection fails.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from 'node:sqlite';
 * const stores = sqliteStores(new DatabaseSync('node.sqlite'));
 * ```
 */
export function sqliteStores(db: SqliteDatabase, options: SqliteStoresOptions = {}): SqliteStores {
  if (typeof db?.prepare !== 'function' || typeof db.exec !== 'function') {
    throw new TypeError('sqliteStores needs a SQLite connection with prepare() and exec()');
  }
  const synchronous = options.synchronous ?? 'normal';
  if (synchronous !== 'normal' && synchronous !== 'full') {
    throw new RangeError("options.synchronous must be 'normal' or 'full'");
  }
  const schema = prepareDatabase(db, { configure: options.configure ?? true, synchronous });
  let queries: Queries;
  try {
    queries = new Queries(db, schema);
  } catch (error) {
    throw driverError(error, 'preparing the SQLite stores');
  }
  let closed = false;
  const live = (doing: string) => {
    if (closed) throw new MincaError('closed', `${doing}: these SQLite stores are closed`);
  };
  return {
    bodyCache: new LruBodyCache(SQLITE_BODY_CACHE, SQLITE_BODY_CACHE_BYTES),
    async open(path: string): Promise<StorageAdapter> {
      live('open');
      assertPath(path);
      try {
        return new SqliteAdapter(queries, queries.storeId(path), path);
      } catch (error) {
        throw driverError(error, `opening the SQLite store ${path}`);
      }
    },
    async size(path: string): Promise<number> {
      live('size');
      assertPath(path);
      try {
        const store = queries.findStore(path);
        return store === undefined ? 0 : queries.size(store);
      } catch (error) {
        throw driverError(error, `measuring the SQLite store ${path}`);
      }
    },
    /** Stops opening stores. The connection stays open: whoever opened it closes it. */
    async close(): Promise<void> {
      closed = true;
    },
  };
}
