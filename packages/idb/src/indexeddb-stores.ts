/// <reference lib="dom" />
/** The IndexedDB store factory: one database per store, named from a prefix and the path. */
import { type BodyCache, MincaError, type StorageAdapter, type StoreFactory } from '@minca/core';
import { databaseName } from './database-name.js';
import { IndexedDBAdapter } from './indexeddb-adapter.js';
import { openStoreDatabase } from './open-database.js';
import type { KeyRangeFactory } from './prefix-range.js';

/** Options of {@link indexedDBStores}. */
export interface IndexedDBStoresOptions {
  /**
   * The IndexedDB factory to open databases with; `globalThis.indexedDB` by default. Tests pass
   * a fresh `new IDBFactory()` from fake-indexeddb. The IndexedDB classes (`IDBRequest`,
   * `IDBKeyRange`, …) must be globals too, so in Node import `fake-indexeddb/auto` as well.
   */
  indexedDB?: IDBFactory;
  /** A body cache every store of the factory shares, instead of one each. */
  bodyCache?: BodyCache;
}

/** The classes of a whole IndexedDB, which must be globals: key ranges are made with one. */
const IDB_CLASSES = [
  'IDBRequest',
  'IDBDatabase',
  'IDBTransaction',
  'IDBObjectStore',
  'IDBIndex',
  'IDBCursor',
  'IDBKeyRange',
] as const;

function platform(options: IndexedDBStoresOptions): {
  factory: IDBFactory;
  keyRange: KeyRangeFactory;
} {
  const scope = globalThis as unknown as Record<string, unknown>;
  const factory = options.indexedDB ?? (scope.indexedDB as IDBFactory | undefined);
  const missing = IDB_CLASSES.filter((name) => typeof scope[name] !== 'function');
  if (factory === undefined || factory === null || missing.length > 0) {
    const what = factory ? missing.join(', ') : 'indexedDB';
    throw new MincaError(
      'storage',
      `IndexedDB is not available here (no ${what}): in Node, import 'fake-indexeddb/auto' or pass options.indexedDB`,
    );
  }
  return { factory, keyRange: scope.IDBKeyRange as KeyRangeFactory };
}

/**
 * Stores in IndexedDB: the store at `path` is the database `<prefix>:<path>`, with each `/` of
 * the path turned into `:`, at version 4 (one made at an earlier version is emptied when
 * opened). For example `indexedDBStores('minca:accounts:k3x9q2:stores').open('spaces/s1')`
 * opens `minca:accounts:k3x9q2:stores:spaces:s1`.
 *
 * Each store is one connection; `close()` on a store closes it, and `close()` on the factory
 * closes any store still open. When another tab upgrades or deletes a database, the store
 * closes so as not to block it, and later calls fail with `MincaError('closed')`.
 *
 * @param prefix What every database name starts with, such as `minca:<dataPath>`.
 * @throws TypeError / RangeError when `prefix` is not a non-empty string.
 * @throws MincaError `storage` when there is no IndexedDB.
 */
export function indexedDBStores(
  prefix: string,
  options: IndexedDBStoresOptions = {},
): StoreFactory {
  if (typeof prefix !== 'string') throw new TypeError('prefix must be a string');
  if (prefix === '') throw new RangeError('prefix must not be empty');
  const { factory, keyRange } = platform(options);
  const open = new Set<IndexedDBAdapter>();
  let closed = false;

  return {
    bodyCache: options.bodyCache,

    async open(path: string): Promise<StorageAdapter> {
      if (closed) throw new MincaError('closed', `the IndexedDB stores under ${prefix} are closed`);
      const name = databaseName(prefix, path);
      // Set once the adapter exists: a connection lost that early still reaches it.
      let adapter: IndexedDBAdapter | undefined;
      let lostEarly: string | undefined;
      const db = await openStoreDatabase(factory, name, {
        lost: (reason) => (adapter ? adapter.lost(reason) : (lostEarly = reason)),
      });
      if (closed) {
        db.close();
        throw new MincaError('closed', `the IndexedDB stores under ${prefix} are closed`);
      }
      adapter = new IndexedDBAdapter(name, db, keyRange, () => open.delete(adapter!));
      open.add(adapter);
      if (lostEarly !== undefined) adapter.lost(lostEarly);
      return adapter;
    },

    async close(): Promise<void> {
      closed = true;
      for (const adapter of [...open]) await adapter.close();
    },
  };
}
