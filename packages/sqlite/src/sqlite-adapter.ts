/**
 * One store in the shared database: its entries and version bodies are the rows of
 * `minca_entries` and `minca_versions` with its store id. Every call checks its arguments
 * first, then runs synchronously on the connection, so nothing interleaves with it.
 */
import {
  type Commit,
  type EntryWrite,
  MincaError,
  type StorageAdapter,
  type VersionKey,
} from '@minca/core';
import { driverError } from './driver.js';
import { assertKey, type KeyRange, prefixRange, sortEntries, sortKeys } from './key-order.js';
import type { Queries } from './queries.js';

const VERSION_ID = /^[0-9a-f]{64}$/;

function assertId(id: unknown): asserts id is VersionKey {
  if (typeof id !== 'string' || !VERSION_ID.test(id)) {
    throw new TypeError('a version id must be 64 lowercase hex characters');
  }
}

function assertBody(body: unknown): asserts body is Uint8Array {
  if (!(body instanceof Uint8Array)) throw new TypeError('a version body must be a Uint8Array');
}

function assertWrites(writes: readonly EntryWrite[]): void {
  if (!Array.isArray(writes)) throw new TypeError('writes must be an array');
  for (const write of writes) {
    assertKey(write?.key);
    if (write.value !== undefined && !(write.value instanceof Uint8Array)) {
      throw new TypeError('a write value must be a Uint8Array, or undefined to delete');
    }
  }
}

function assertCommit(commit: Commit): void {
  if (typeof commit !== 'object' || commit === null)
    throw new TypeError('commit must be an object');
  if (!Array.isArray(commit.versions) || !Array.isArray(commit.deleteVersions)) {
    throw new TypeError('commit.versions and commit.deleteVersions must be arrays');
  }
  for (const pair of commit.versions) {
    if (!Array.isArray(pair)) throw new TypeError('each commit version must be an [id, body] pair');
    assertId(pair[0]);
    assertBody(pair[1]);
  }
  commit.deleteVersions.forEach(assertId);
  assertWrites(commit.entries);
}

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

  async entries(prefix: string): Promise<Array<[string, Uint8Array]>> {
    const range = prefixRange(prefix);
    const entries = this.#run('entries', (q, store) => q.entries(store, range));
    return sortEntries(within(range, entries, ([key]) => key));
  }

  async batch(writes: readonly EntryWrite[]): Promise<void> {
    assertWrites(writes);
    this.#run('batch', (q, store) => q.transaction(() => applyWrites(q, store, writes)));
  }

  async getVersion(id: VersionKey): Promise<Uint8Array | undefined> {
    assertId(id);
    return this.#run('getVersion', (q, store) => q.getVersion(store, id));
  }

  async getVersions(ids: readonly VersionKey[]): Promise<Array<Uint8Array | undefined>> {
    if (!Array.isArray(ids)) throw new TypeError('ids must be an array');
    ids.forEach(assertId);
    return this.#run('getVersions', (q, store) => ids.map((id) => q.getVersion(store, id)));
  }

  async putVersion(id: VersionKey, body: Uint8Array): Promise<void> {
    assertId(id);
    assertBody(body);
    // One statement in autocommit mode is a transaction of its own.
    this.#run('putVersion', (q, store) => q.putVersion(store, id, body));
  }

  async deleteVersion(id: VersionKey): Promise<void> {
    assertId(id);
    this.#run('deleteVersion', (q, store) => q.deleteVersion(store, id));
  }

  async commit(commit: Commit): Promise<void> {
    assertCommit(commit);
    this.#run('commit', (q, store) =>
      q.transaction(() => {
        for (const [id, body] of commit.versions) q.putVersion(store, id, body);
        applyWrites(q, store, commit.entries);
        for (const id of commit.deleteVersions) q.deleteVersion(store, id);
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
