/// <reference lib="dom" />
/**
 * One store over one IndexedDB database: entries in object store `kv`, version bodies in
 * `versions`. Every call is one transaction, and inside it nothing is awaited but that
 * transaction's own requests, so it never commits early (idb's "transaction lifetime" rule).
 */
import {
  assertBodyBytes,
  assertCommit,
  assertVersionKey,
  assertWrites,
  type Commit,
  type EntryWrite,
  isMincaError,
  MincaError,
  type StorageAdapter,
  type VersionKey,
} from '@minca/core';
import type { IDBPDatabase } from 'idb';
import type { StoreSchema } from './open-database.js';
import { type KeyRangeFactory, prefixRange } from './prefix-range.js';
import { fromStored, toStored } from './stored-bytes.js';

function checkKey(key: string, what = 'key'): void {
  if (typeof key !== 'string') throw new TypeError(`${what} must be a string`);
}

type Database = IDBPDatabase<StoreSchema>;

/**
 * Queues a write transaction's requests, then waits for all of them and for the commit. Each
 * request's promise is awaited too, so a failed one is never an unhandled rejection. A request
 * that throws as it is queued (a value that can't be cloned) aborts the transaction, so what
 * was queued before it does not land alone.
 */
function writeAll(
  tx: { done: Promise<void>; abort(): void },
  queue: (requests: Array<Promise<unknown>>) => void,
): Promise<unknown> {
  const requests: Array<Promise<unknown>> = [];
  try {
    queue(requests);
  } catch (error) {
    for (const request of [...requests, tx.done]) request.catch(() => {});
    try {
      tx.abort();
    } catch {
      // Already finished or aborting: either way nothing queued here commits.
    }
    throw error;
  }
  requests.push(tx.done);
  return Promise.all(requests);
}

/** A {@link StorageAdapter} over an open store database. Made by `indexedDBStores`. */
export class IndexedDBAdapter implements StorageAdapter {
  /** The database's name, for messages. */
  readonly name: string;
  readonly #db: Database;
  readonly #keyRange: KeyRangeFactory;
  /** Why the store is closed, once it is. */
  #closed: string | undefined;
  readonly #onClose: () => void;

  constructor(name: string, db: Database, keyRange: KeyRangeFactory, onClose: () => void) {
    this.name = name;
    this.#db = db;
    this.#keyRange = keyRange;
    this.#onClose = onClose;
  }

  /** Called when the connection went away underneath (see `DatabaseEvents.lost`). */
  lost(reason: string): void {
    if (this.#closed !== undefined) return;
    this.#closed = `IndexedDB database ${this.name} was closed: ${reason}; open the store again`;
    this.#onClose();
  }

  #open(): Database {
    if (this.#closed !== undefined) throw new MincaError('closed', this.#closed);
    return this.#db;
  }

  /** Runs one transaction's work, turning what IndexedDB throws into a MincaError. */
  async #run<T>(what: string, work: (db: Database) => Promise<T>): Promise<T> {
    const db = this.#open();
    try {
      return await work(db);
    } catch (error) {
      if (isMincaError(error)) throw error;
      // A connection closed under a call fails it with InvalidStateError: say why instead.
      if (this.#closed !== undefined)
        throw new MincaError('closed', this.#closed, { cause: error });
      const name = error instanceof Error ? error.name : 'Error';
      const detail = error instanceof Error ? error.message : String(error);
      const why = name === 'QuotaExceededError' ? 'out of storage space' : `${name}: ${detail}`;
      throw new MincaError('storage', `IndexedDB ${what} in ${this.name} failed: ${why}`, {
        cause: error,
      });
    }
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    checkKey(key);
    const value = await this.#run('get', (db) => db.get('kv', key));
    return fromStored(value, `entry ${JSON.stringify(key)}`);
  }

  async list(prefix: string): Promise<string[]> {
    checkKey(prefix, 'prefix');
    const range = prefixRange(this.#keyRange, prefix);
    // IndexedDB orders string keys by UTF-16 code units, which is the contract's order.
    return this.#run('list', (db) => db.getAllKeys('kv', range));
  }

  async count(prefix: string): Promise<number> {
    checkKey(prefix, 'prefix');
    const range = prefixRange(this.#keyRange, prefix);
    return this.#run('count', (db) => db.count('kv', range));
  }

  async entries(prefix: string): Promise<Array<[string, Uint8Array]>> {
    checkKey(prefix, 'prefix');
    const range = prefixRange(this.#keyRange, prefix);
    const [keys, values] = await this.#run('entries', (db) => {
      // Both reads in one readonly transaction see the same state, in the same key order.
      const store = db.transaction('kv').store;
      return Promise.all([store.getAllKeys(range), store.getAll(range)]);
    });
    return keys.map((key, i) => [key, fromStored(values[i], `entry ${JSON.stringify(key)}`)!]);
  }

  async batch(writes: readonly EntryWrite[]): Promise<void> {
    assertWrites(writes);
    this.#open();
    if (writes.length === 0) return;
    await this.#run('batch', (db) => {
      const tx = db.transaction('kv', 'readwrite');
      return writeAll(tx, (requests) => {
        for (const { key, value } of writes) {
          requests.push(
            value === undefined ? tx.store.delete(key) : tx.store.put(toStored(value), key),
          );
        }
      });
    });
  }

  async getVersion(id: VersionKey): Promise<Uint8Array | undefined> {
    assertVersionKey(id);
    const body = await this.#run('getVersion', (db) => db.get('versions', id));
    return fromStored(body, `version ${id}`);
  }

  async getVersions(ids: readonly VersionKey[]): Promise<Array<Uint8Array | undefined>> {
    if (!Array.isArray(ids)) throw new TypeError('ids must be an array');
    ids.forEach(assertVersionKey);
    this.#open();
    if (ids.length === 0) return [];
    const bodies = await this.#run('getVersions', (db) => {
      const store = db.transaction('versions').store;
      return Promise.all(ids.map((id) => store.get(id)));
    });
    return bodies.map((body, i) => fromStored(body, `version ${ids[i]}`));
  }

  async putVersion(id: VersionKey, body: Uint8Array): Promise<void> {
    assertVersionKey(id);
    assertBodyBytes(body);
    await this.#run('putVersion', (db) => {
      const tx = db.transaction('versions', 'readwrite');
      return writeAll(tx, (requests) => requests.push(tx.store.put(toStored(body), id)));
    });
  }

  async deleteVersion(id: VersionKey): Promise<void> {
    assertVersionKey(id);
    await this.#run('deleteVersion', (db) => db.delete('versions', id));
  }

  async commit(commit: Commit): Promise<void> {
    assertCommit(commit);
    this.#open();
    const { versions, entries, deleteVersions } = commit;
    if (versions.length + entries.length + deleteVersions.length === 0) return;
    await this.#run('commit', (db) => {
      const tx = db.transaction(['kv', 'versions'], 'readwrite');
      const kv = tx.objectStore('kv');
      const bodies = tx.objectStore('versions');
      // Requests run in order: bodies, then the entries naming them, then the deletes.
      return writeAll(tx, (requests) => {
        for (const [id, body] of versions) requests.push(bodies.put(toStored(body), id));
        for (const { key, value } of entries) {
          requests.push(value === undefined ? kv.delete(key) : kv.put(toStored(value), key));
        }
        for (const id of deleteVersions) requests.push(bodies.delete(id));
      });
    });
  }

  /** Closes the connection. Transactions already started still finish. Closing twice is fine. */
  async close(): Promise<void> {
    if (this.#closed !== undefined) return;
    this.#closed = `IndexedDB store ${this.name} is closed`;
    this.#db.close();
    this.#onClose();
  }
}
