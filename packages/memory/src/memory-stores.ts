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
  /**
   * The keys of `entries`, sorted, so a prefix is a range found by binary search; keys added
   * since the last read wait in `pending` (unsorted), so a write costs no splice into a long
   * array, and are merged in once by the next read.
   */
  keys: string[];
  pending: string[];
  versions: Map<VersionKey, Uint8Array>;
}

/** Below this many deleted keys a batch splices each out; above, it filters once. */
const SPLICE_BELOW = 16;
/** Pending keys (beyond the square root of the sorted ones) that a read merges in. */
const MERGE_AT = 64;

/** The index of the first key in `keys` at or above `key`. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Copies of `values` (`undefined` stays so), all in one new buffer: one allocation for a whole
 * read, where a copy each costs an array buffer of its own (and the collector a sweep of each).
 * A value kept keeps its read's buffer alive: fine for a store meant for tests.
 */
function copyOut<T extends Uint8Array | undefined>(values: readonly T[]): T[] {
  let size = 0;
  for (const value of values) size += value?.length ?? 0;
  const all = new Uint8Array(size);
  let at = 0;
  return values.map((value) => {
    if (value === undefined) return value;
    all.set(value, at);
    return all.subarray(at, (at += value.length)) as T;
  });
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

  /** Merges the pending keys still there into the sorted ones. */
  #merge(data: StoreData): void {
    const { entries, keys } = data;
    const fresh = data.pending.filter((key) => entries.has(key)).sort();
    data.pending = [];
    const merged: string[] = [];
    let i = 0;
    let j = 0;
    while (i < keys.length || j < fresh.length) {
      const next =
        j >= fresh.length || (i < keys.length && keys[i]! <= fresh[j]!) ? keys[i++]! : fresh[j++]!;
      // A key deleted and put again, or put again after a delete, may come twice: kept once.
      if (merged.length === 0 || merged[merged.length - 1] !== next) merged.push(next);
    }
    data.keys = merged;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.#open().entries.get(key)?.slice();
  }

  async list(prefix: string): Promise<string[]> {
    const data = this.#open();
    // Merged once they are more than a root of the rest: each read looks through the pending
    // ones, each merge copies the whole array, and so both stay small per write.
    if (data.pending.length > MERGE_AT + Math.sqrt(data.keys.length)) this.#merge(data);
    const { keys, pending, entries } = data;
    // Strings compare by UTF-16 code units, which is the contract's order.
    const from = lowerBound(keys, prefix);
    let to = from;
    while (to < keys.length && keys[to]!.startsWith(prefix)) to++;
    const found = keys.slice(from, to);
    const more = pending.filter((key) => key.startsWith(prefix) && entries.has(key));
    if (more.length === 0) return found;
    found.push(...more);
    found.sort();
    return found.filter((key, i) => i === 0 || found[i - 1] !== key);
  }

  async count(prefix: string): Promise<number> {
    return (await this.list(prefix)).length;
  }

  async entries(prefix: string): Promise<Array<[string, Uint8Array]>> {
    const { entries } = this.#open();
    const keys = await this.list(prefix);
    const values = copyOut(keys.map((key) => entries.get(key)!));
    return keys.map((key, i) => [key, values[i]!]);
  }

  async batch(writes: readonly EntryWrite[]): Promise<void> {
    const data = this.#open();
    const { entries } = data;
    assertWrites(writes);
    // Every write is checked before any lands, and nothing awaits in between: all or nothing.
    const added: string[] = [];
    const deleted: string[] = [];
    for (const { key, value } of writes) {
      if (value === undefined) {
        if (entries.delete(key)) deleted.push(key);
      } else {
        if (!entries.has(key)) added.push(key);
        entries.set(key, value.slice());
      }
    }
    // Pending keys deleted stay pending until a read or merge skips them (not in `entries`).
    if (deleted.length >= SPLICE_BELOW) data.keys = data.keys.filter((key) => entries.has(key));
    else
      for (const key of deleted) {
        const at = lowerBound(data.keys, key);
        if (data.keys[at] === key && !entries.has(key)) data.keys.splice(at, 1);
      }
    // A key deleted and put again in this batch is kept and pending: reads give it once.
    for (const key of added) if (entries.has(key)) data.pending.push(key);
  }

  async getVersion(id: VersionKey): Promise<Uint8Array | undefined> {
    return this.#open().versions.get(id)?.slice();
  }

  async getVersions(ids: readonly VersionKey[]): Promise<Array<Uint8Array | undefined>> {
    const { versions } = this.#open();
    return copyOut(ids.map((id) => versions.get(id)));
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
      if (!data)
        stores.set(
          path,
          (data = { entries: new Map(), keys: [], pending: [], versions: new Map() }),
        );
      return new MemoryAdapter(data);
    },
    async close(): Promise<void> {
      closed = true;
    },
  };
}
