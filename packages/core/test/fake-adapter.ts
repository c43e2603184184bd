/**
 * A tiny in-memory adapter and blob store for core's own tests of the conformance suites, with
 * switches that break one rule each, so a test can show the suite catches it.
 */
import type { Commit, EntryWrite, StorageAdapter, StoreFactory } from '../src/adapter.ts';
import { assertBlobKey, type BlobStore } from '../src/blob-store.ts';
import { unnamedFiles } from '../src/named-files.ts';

/** Rules a fake may break. */
export interface Flaws {
  /** `list(p)` also returns keys sharing all but the last character of `p`. */
  siblings?: boolean;
  /** Keeps and returns the caller's bytes instead of copies. */
  aliases?: boolean;
  /** Returns keys in insertion order. */
  unsorted?: boolean;
  /** Applies a batch's writes one by one, yielding between them. */
  tornBatch?: boolean;
  /** Forgets everything when a store is closed. */
  forgets?: boolean;
  /** Sorts by code point instead of UTF-16 code unit. */
  codePoints?: boolean;
}

/** What a fake store holds; pass one backing to several factories to simulate a restart. */
export interface Data {
  entries: Map<string, Uint8Array>;
  versions: Map<string, Uint8Array>;
}

const copy = (bytes: Uint8Array, flaws: Flaws) => (flaws.aliases ? bytes : bytes.slice());

function byCodePoint(a: string, b: string): number {
  const [x, y] = [[...a], [...b]];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function fakeAdapter(data: Data, flaws: Flaws, optional: boolean): StorageAdapter {
  const apply = (writes: readonly EntryWrite[]) => {
    for (const { key, value } of writes) {
      if (value === undefined) data.entries.delete(key);
      else data.entries.set(key, copy(value, flaws));
    }
  };
  const list = async (prefix: string) => {
    const match = flaws.siblings ? prefix.slice(0, -1) : prefix;
    const keys = [...data.entries.keys()].filter((k) => k.startsWith(match));
    if (flaws.unsorted) return keys;
    return flaws.codePoints ? keys.sort(byCodePoint) : keys.sort();
  };
  const batch = async (writes: readonly EntryWrite[]) => {
    for (const w of writes) {
      if (typeof w.key !== 'string' || !(w.value === undefined || w.value instanceof Uint8Array)) {
        throw new TypeError('bad write');
      }
    }
    if (!flaws.tornBatch) return apply(writes);
    for (const w of writes) {
      apply([w]);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  };
  const adapter: StorageAdapter = {
    get: async (key) => {
      const v = data.entries.get(key);
      return v && copy(v, flaws);
    },
    list,
    batch,
    getVersion: async (id) => {
      const v = data.versions.get(id);
      return v && copy(v, flaws);
    },
    putVersion: async (id, body) => void data.versions.set(id, copy(body, flaws)),
    deleteVersion: async (id) => void data.versions.delete(id),
    close: async () => {
      if (flaws.forgets) {
        data.entries.clear();
        data.versions.clear();
      }
    },
  };
  if (!optional) return adapter;
  return {
    ...adapter,
    entries: async (prefix) =>
      (await list(prefix)).map(
        (k) => [k, copy(data.entries.get(k)!, flaws)] as [string, Uint8Array],
      ),
    getVersions: async (ids) => Promise.all(ids.map((id) => adapter.getVersion(id))),
    // Answered from listings, but as the adapter's own: the keep policy then asks it.
    unnamedFiles: () => unnamedFiles(adapter),
    commit: async (c: Commit) => {
      await batch(c.entries);
      for (const [id, body] of c.versions) data.versions.set(id, copy(body, flaws));
      for (const id of c.deleteVersions) data.versions.delete(id);
    },
  };
}

/** A factory of fake stores; its data outlives a closed store, and lives in `backing` if given. */
export function fakeStores(
  options: { flaws?: Flaws; optional?: boolean; backing?: Map<string, Data> } = {},
): StoreFactory {
  const stores = options.backing ?? new Map<string, Data>();
  return {
    open: async (path) => {
      let data = stores.get(path);
      if (!data) stores.set(path, (data = { entries: new Map(), versions: new Map() }));
      return fakeAdapter(data, options.flaws ?? {}, options.optional ?? false);
    },
  };
}

/** A fake blob store; `checkKeys: false` skips key checks, `siblings` lists one character short. */
export function fakeBlobStore(
  flaws: { uncheckedKeys?: boolean; siblings?: boolean; aliases?: boolean } = {},
): BlobStore {
  const blobs = new Map<string, Uint8Array>();
  const check = (key: string) => flaws.uncheckedKeys || assertBlobKey(key);
  return {
    get: async (key) => {
      check(key);
      const v = blobs.get(key);
      return v ? (flaws.aliases ? v : v.slice()) : null;
    },
    put: async (key, bytes) => {
      check(key);
      blobs.set(key, flaws.aliases ? bytes : bytes.slice());
    },
    delete: async (key) => {
      check(key);
      blobs.delete(key);
    },
    list: async (prefix) => {
      const match = flaws.siblings ? prefix.slice(0, -1) : prefix;
      return [...blobs.keys()].filter((k) => k.startsWith(match)).sort();
    },
  };
}

/** Stores (fake ones unless given) counting how often a space's store opens (`count.opens`, set back at will). */
export function countingOpens(inner: StoreFactory = fakeStores()) {
  const count = { opens: 0 };
  const stores: StoreFactory = {
    ...inner,
    open: (path) => {
      if (path.startsWith('spaces/')) count.opens++;
      return inner.open(path);
    },
  };
  return { stores, count };
}

/**
 * Fake stores (with the optional methods) whose space stores take `overlay`'s methods over
 * their adapter's own: a test's counting or slowing of what the node does to a space's store.
 */
function spaceStoresWith(
  overlay: (adapter: StorageAdapter) => Partial<StorageAdapter>,
): StoreFactory {
  const inner = fakeStores({ optional: true });
  return {
    ...inner,
    open: async (path) => {
      const adapter = await inner.open(path);
      if (!path.startsWith('spaces/')) return adapter;
      return Object.assign(Object.create(adapter), overlay(adapter));
    },
  };
}

/**
 * Fake stores whose space stores note how many versions each commit carries, and take `ms`
 * over each, as a disk slower than the work before it would.
 */
export function countingCommits(ms: number) {
  const commits: number[] = [];
  const factory = spaceStoresWith((adapter) => {
    const commit = adapter.commit!.bind(adapter);
    return {
      commit: async (c: Commit) => {
        if (c.versions.length > 0) commits.push(c.versions.length);
        await new Promise((resolve) => setTimeout(resolve, ms));
        return commit(c);
      },
    };
  });
  return { factory, commits };
}

/** Fake stores whose space stores count the versions read from them (`count.versions`). */
export function countingReads() {
  const count = { versions: 0 };
  const stores = spaceStoresWith((adapter) => {
    const getVersions = adapter.getVersions!.bind(adapter);
    return {
      getVersions: (ids: readonly string[]) => {
        count.versions += ids.length;
        return getVersions(ids);
      },
    };
  });
  return { stores, count };
}
