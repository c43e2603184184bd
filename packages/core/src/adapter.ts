/**
 * The storage adapter contract: what a backend implements to keep one store.
 *
 * A store is a set of entries (string keys to bytes) and a set of version bodies by id.
 * Every method is async. The optional methods only save round trips: a store gives the
 * same answers without them (see {@link ./store-io.ts}).
 */
import type { BlobStore } from './blob-store.js';

/** A version id as the adapter sees it: 64 lowercase hex characters (SHA-256). */
export type VersionKey = string;

/** One write in a batch: `value` undefined deletes the key. */
export interface EntryWrite {
  key: string;
  value: Uint8Array | undefined;
}

/** Everything one change of a store writes, for {@link StorageAdapter.commit}. */
export interface Commit {
  /** Version bodies to put (written before any entry that names them). */
  versions: ReadonlyArray<readonly [VersionKey, Uint8Array]>;
  /** Entry writes, applied as one batch. */
  entries: readonly EntryWrite[];
  /** Version bodies to delete (after the entries that named them are gone). */
  deleteVersions: readonly VersionKey[];
}

export interface StorageAdapter {
  /** The value of `key`, or `undefined` when absent. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Every key that starts with `prefix`, sorted by UTF-16 code units. */
  list(prefix: string): Promise<string[]>;
  /** Applies every write atomically: all of them or none. */
  batch(writes: readonly EntryWrite[]): Promise<void>;
  getVersion(id: VersionKey): Promise<Uint8Array | undefined>;
  putVersion(id: VersionKey, body: Uint8Array): Promise<void>;
  deleteVersion(id: VersionKey): Promise<void>;

  /** Optional: every entry under `prefix`, sorted by key, in one read. */
  entries?(prefix: string): Promise<Array<[string, Uint8Array]>>;
  /** Optional: how many keys start with `prefix`, without listing them. */
  count?(prefix: string): Promise<number>;
  /** Optional: several bodies in one read, `undefined` where absent, in the order asked. */
  getVersions?(ids: readonly VersionKey[]): Promise<Array<Uint8Array | undefined>>;
  /**
   * Optional: the files nothing names, in one query: the ids of every `f/<id>/list` with no
   * `y/<id>/<rest>` whose `x/<rest>` is there (spec 05 §16.6.4), sorted. Without it, the store
   * finds the same from three prefix listings.
   */
  unnamedFiles?(): Promise<string[]>;
  /** Optional: one atomic write of versions, entries and version deletes. */
  commit?(commit: Commit): Promise<void>;
  /** Releases what the adapter holds. Reopening the same path gives back everything. */
  close?(): Promise<void>;
}

/** A cache of version bodies that several stores may share. Bodies never change. */
export interface BodyCache {
  /**
   * Bodies it holds at most, when it says: a listing of more records than that reads its
   * bodies past the cache, since caching them would only push each other out.
   */
  readonly capacity?: number;
  get(id: VersionKey): Uint8Array | undefined;
  /**
   * A body held, without counting as a use, optional: for a listing reading past the cache,
   * whose reads would otherwise reorder it for bodies it will not read again soon.
   */
  peek?(id: VersionKey): Uint8Array | undefined;
  set(id: VersionKey, body: Uint8Array): void;
  delete(id: VersionKey): void;
}

/**
 * Opens stores by path, such as `registry` or `spaces/<space id>`. Paths are `/`-separated
 * parts of `[A-Za-z0-9._-]`.
 */
export interface StoreFactory {
  open(path: string): Promise<StorageAdapter>;
  /**
   * Mirrors these stores bring with them (a data folder's segments, spec 05 §14). A node mirrors
   * every space to these first, then to `NodeConfig.mirrors`; a mirror's index `n` (its store
   * path `mirrors/<space id>/<n>`) is its place in that joined list.
   */
  readonly mirrors?: readonly MirrorConfig[];
  /** A body cache all stores of this factory share, instead of one each. */
  readonly bodyCache?: BodyCache;
  /** Releases what the factory holds, once every store is closed. */
  close?(): Promise<void>;
}

/** A blob store a node mirrors its spaces to (spec 05 §16), and how often. */
export interface MirrorConfig {
  store: BlobStore;
  /** Delay from the first change to a push, ms: 5,000 by default, 1,000 for a data folder. */
  pushDelayMs?: number;
  /** Pull period while a space is open, ms; 0 pulls only when the space opens. */
  pullIntervalMs?: number;
}
