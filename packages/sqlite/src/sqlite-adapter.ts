/**
 * One store in the shared database: its entries and version bodies are the rows of
 * `minca_entries` and `minca_versions` (with their ids) with its store id. Every call checks
 * its arguments first, then runs synchronously on the connection, so nothing interleaves with it.
 */
import {
  assertBodyBytes,
  assertCommit,
  assertVersionKey,
  assertWrites,
  type Commit,
  type EntryWrite,
  MincaError,
  type StorageAdapter,
  type VersionKey,
} from '@minca/core';
import { driverError } from './driver.js';
import { assertKey, type KeyRange, prefixRange, sortEntries, sortKeys } from './key-order.js';
import type { Queries } from './queries.js';

/** Keeps the rows of a range that start with its filter, if it has one. */
function within<T>(range: KeyRange, items: T[], key: (item: T) => string): T[] {
  const { startsWith } = range;
  return startsWith === undefined
    ? items
    : items.filter((item) => key(item).startsWith(startsWith));
}

/** A {@link StorageAdapter} over one store's rows. */
export class SqliteAdapter implements StorageAdapter {
  readonly #queries: Queries;
  readonly #store: number;
  readonly #path: string;
  #closed = false;

  constructor(queries: Queries, store: number, path: string) {
    this.#queries = queries;
    this.#store = store;
    this.#path = path;
  }

  /** Runs `read` or `write` on the connection, with driver errors as {@link MincaError}s. */
  #run<T>(doing: string, work: (queries: Queries, store: number) => T): T {
    if (this.#closed) throw new MincaError('closed', `the SQLite store ${this.#path} is closed`);
    try {
      return work(this.#queries, this.#store);
    } catch (error) {
      throw driverError(error, `${doing} in the SQLite store ${this.#path}`);
    }
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    assertKey(key);
    return this.#run('get', (q, store) => q.getEntry(store, key));
  }

  async list(prefix: string): Promise<string[]> {
    const range = prefixRange(prefix);
    const keys = this.#run('list', (q, store) => q.keys(store, range));
    return sortKeys(within(range, keys, (key) => key));
  }

  async count(prefix: string): Promise<number> {
    const range = prefixRange(prefix);
    // A range wider than the prefix (it ends in half a surrogate pair) is filtered by listing.
    if (range.startsWith !== undefined) return (await this.list(prefix)).length;
    return this.#run('count', (q, store) => q.count(store, range));
  }

  async entries(prefix: string): Promise<Array<[string, Uint8Array]>> {
    const range = prefixRange(prefix);
    const entries = this.#run('entries', (q, store) => q.entries(store, range));
    return sortEntries(within(range, entries, ([key]) => key));
  }

  async batch(writes: readonly EntryWrite[]): Promise<void> {
    assertWrites(writes, assertKey);
    this.#run('batch', (q, store) => q.transaction(() => applyWrites(q, store, writes)));
  }

  async getVersion(id: VersionKey): Promise<Uint8Array | undefined> {
    assertVersionKey(id);
    return this.#run('getVersion', (q, store) => q.versions.get(store, id));
  }

  async getVersions(ids: readonly VersionKey[]): Promise<Array<Uint8Array | undefined>> {
    if (!Array.isArray(ids)) throw new TypeError('ids must be an array');
    ids.forEach(assertVersionKey);
    return this.#run('getVersions', (q, store) => ids.map((id) => q.versions.get(store, id)));
  }

  async putVersion(id: VersionKey, body: Uint8Array): Promise<void> {
    assertVersionKey(id);
    assertBodyBytes(body);
    this.#run('putVersion', (q, store) =>
      q.transaction(() => {
        q.versions.put(store, id, body);
        q.versions.settle();
      }),
    );
  }

  async deleteVersion(id: VersionKey): Promise<void> {
    assertVersionKey(id);
    this.#run('deleteVersion', (q, store) => q.transaction(() => q.versions.delete(store, id)));
  }

  /** The files nothing names, in one SQL statement over the `f/`, `y/` and `x/` entries. */
  async unnamedFiles(): Promise<string[]> {
    return this.#run('unnamedFiles', (q, store) => q.unnamedFiles(store));
  }

  async commit(commit: Commit): Promise<void> {
    assertCommit(commit, assertKey);
    this.#run('commit', (q, store) =>
      q.transaction(() => {
        for (const [id, body] of commit.versions) q.versions.put(store, id, body);
        applyWrites(q, store, commit.entries);
        for (const id of commit.deleteVersions) q.versions.delete(store, id);
        if (commit.versions.length > 0) q.versions.settle();
      }),
    );
  }

  /** Stops this store's calls. The connection stays open: the factory's other stores share it. */
  async close(): Promise<void> {
    this.#closed = true;
  }
}

function applyWrites(q: Queries, store: number, writes: readonly EntryWrite[]): void {
  for (const { key, value } of writes) {
    if (value === undefined) q.deleteEntry(store, key);
    else q.putEntry(store, key, value);
  }
}
