/**
 * Stores kept in memory, for tests: one map of entries and one of version bodies per path,
 * held by the factory, so a store closed and opened again finds its data.
 */
import {
  assertBodyBytes,
  assertCommit,
  assertVersionKey,
  assertWrites,
  type BodyCache,
  type Commit,
  type EntryWrite,
  MincaError,
  type StorageAdapter,
  type StoreFactory,
  type VersionKey,
} from '@minca/core';

/** Options of {@link memoryStores}. */
export interface MemoryStoresOptions {
  /** A body cache every store of the factory shares. */
  bodyCache?: BodyCache;
}

const PATH = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

interface StoreData {
  entries: Map<string, Uint8Array>;
  versions: Map<VersionKey, Uint8Array>;
}

/** One open store over its path's data. Copies bytes in and out, so callers can't alias them. */
class MemoryAdapter implements StorageAdapter {
  readonly #data: StoreData;
  #closed = false;

  constructor(data: StoreData) {
    this.#data = data;
  }

  #open(): StoreData {
    if (this.#closed) throw new MincaError('closed', 'this memory store is closed');
    return this.#data;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.#open().entries.get(key)?.slice();
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    for (const key of this.#open().entries.keys()) if (key.startsWith(prefix)) keys.push(key);
    // The default sort compares UTF-16 code units, which is the contract's order.
    return keys.sort();
  }

  async entries(prefix: string): Promise<Array<[string, Uint8Array]>> {
    const { entries } = this.#open();
    return (await this.list(prefix)).map((key) => [key, entries.get(key)!.slice()]);
  }

  async batch(writes: readonly EntryWrite[]): Promise<void> {
    const { entries } = this.#open();
    assertWrites(writes);
    // Every write is checked before any lands, and nothing awaits in between: all or nothing.
    for (const { key, value } of writes) {
      if (value === undefined) entries.delete(key);
      else entries.set(key, value.slice());
    }
  }

  async getVersion(id: VersionKey): Promise<Uint8Array | undefined> {
    return this.#open().versions.get(id)?.slice();
  }

  async getVersions(ids: readonly VersionKey[]): Promise<Array<Uint8Array | undefined>> {
    const { versions } = this.#open();
    return ids.map((id) => versions.get(id)?.slice());
  }

  async putVersion(id: VersionKey, body: Uint8Array): Promise<void> {
    const { versions } = this.#open();
    assertVersionKey(id);
    assertBodyBytes(body);
    versions.set(id, body.slice());
  }

  async deleteVersion(id: VersionKey): Promise<void> {
    this.#open().versions.delete(id);
  }

  async commit(commit: Commit): Promise<void> {
    const { versions } = this.#open();
    assertCommit(commit);
    for (const [id, body] of commit.versions) versions.set(id, body.slice());
    await this.batch(commit.entries);
    for (const id of commit.deleteVersions) versions.delete(id);
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}

/**
 * A factory of stores in memory. Each path's data lives as long as the factory: closing a store
 * and opening its path again gives everything back. Meant for tests.
 */
export function memoryStores(options: MemoryStoresOptions = {}): StoreFactory {
  const stores = new Map<string, StoreData>();
  let closed = false;
  return {
    ...(options.bodyCache ? { bodyCache: options.bodyCache } : {}),
    async open(path: string): Promise<StorageAdapter> {
      if (closed) throw new MincaError('closed', 'this memory store factory is closed');
      if (typeof path !== 'string' || !PATH.test(path)) {
        throw new MincaError(
          'invalid_name',
          `invalid store path ${JSON.stringify(String(path).slice(0, 80))}`,
        );
      }
      let data = stores.get(path);
      if (!data) stores.set(path, (data = { entries: new Map(), versions: new Map() }));
      return new MemoryAdapter(data);
    },
    async close(): Promise<void> {
      closed = true;
    },
  };
}
