/**
 * The store: a node's view of one store, over its adapter (spec 05 §5.2, §5.4).
 *
 * In memory it keeps what sync needs of every collection — its set in blocks, with its count
 * and sum — read at open from the set's pages and the summary, never from an entry per version.
 * Records are read from their index entries when asked for, and the ones read lately are kept
 * (record-cache.ts). Version bodies go through an LRU cache (its own, or its factory's shared
 * one): a body never changes, so caching it is always safe. Writes are serialised, and an entry
 * or record read while a write was landing is not kept, since it may predate that write.
 */
import type { BodyCache, EntryWrite, StorageAdapter } from './adapter.js';
import { CollectionSet } from './collection-set.js';
import { MincaError } from './errors.js';
import { fingerprintOf } from './id-sum.js';
import { RECORD_ID } from './ids.js';
import {
  collectionIndexPrefix,
  decodeMeta,
  metaOf,
  recordIndexPrefix,
  SUMMARY_KEY,
  type Summary,
} from './index-entries.js';
import { readStoredSets, rebuildIndex } from './index-read.js';
import { KeptEntries } from './kept-entries.js';
import { LruBodyCache } from './lru.js';
import { fileRecords, unnamedFiles } from './named-files.js';
import type { NegentropySnapshot } from './negentropy/set.js';
import { COLLECTION_CACHE_VERSIONS, RecordCache, recordOf } from './record-cache.js';
import { CollectionState, RecordState, type VersionMeta } from './record-state.js';
import { VersionBodies } from './store-bodies.js';
import { readEntries, writeCommit } from './store-io.js';
import { planVersions } from './store-plan.js';
import type { Version } from './version.js';

export { VERSION_INDEX_PREFIX, versionIndexKey } from './index-entries.js';

/** Bodies a store caches when its factory shares no cache. */
export const DEFAULT_BODY_CACHE = 50_000;

/**
 * A write of at most this many versions puts their bodies in the cache: a put's, or a live
 * sync's few, are likely read next. A larger one (a join, a pull) is not, and caching it only
 * pushed out the bodies in use: in a join of 100,000 versions, 3% of the joining device's main
 * thread went to caching bodies (a copy each) and letting them go again.
 */
export const CACHED_WRITE_MOST = 64;
/** A collection up to this many versions is read whole when one of its records is asked for. */
const WHOLE_READ_VERSIONS = 4096;

/** A change to write in one go: new versions with their index entries, plus other entries. */
export interface StoreChange {
  versions?: readonly Version[];
  entries?: readonly EntryWrite[];
}

export interface StoreOptions {
  /** A cache shared with other stores; otherwise the store keeps its own. */
  bodyCache?: BodyCache;
}

const EMPTY_SET = new CollectionSet('');

export class Store {
  readonly #adapter: StorageAdapter;
  readonly #bodies: VersionBodies;
  #sets = new Map<string, CollectionSet>();
  /** Index entries under `v/` (damaged ones too) and the damaged ones, as the summary says. */
  #keys = 0;
  #damaged: string[] = [];
  /** Each author's DID, once: shared by every meta kept. */
  readonly #authors = new Map<string, string>();
  readonly #records = new RecordCache();
  /** Values derived from one collection, dropped when it changes. */
  readonly #derived = new Map<string, unknown>();
  /** Entries read or written lately. */
  readonly #entries = new KeptEntries();
  #writes: Promise<unknown> = Promise.resolve();
  /** Bumped by every write and invalidation, so a read can tell one landed under it. */
  #generation = 0;
  #closed = false;

  private constructor(adapter: StorageAdapter, options: StoreOptions) {
    this.#adapter = adapter;
    this.#bodies = new VersionBodies(
      adapter,
      options.bodyCache ?? new LruBodyCache(DEFAULT_BODY_CACHE),
    );
  }

  /** Opens a store over `adapter`: its sets from their pages, or from the whole index. */
  static async open(adapter: StorageAdapter, options: StoreOptions = {}): Promise<Store> {
    const store = new Store(adapter, options);
    await store.#load();
    return store;
  }

  /** Reads the sets from their pages, or (`whole`, or when they don't check out) the index. */
  async #load(whole = false): Promise<void> {
    const stored = await this.#adapter.get(SUMMARY_KEY);
    const read = whole ? undefined : await readStoredSets(this.#adapter, stored);
    let summary: Summary;
    this.#records.clear();
    if (read) {
      this.#sets = read.sets;
      summary = read.summary;
    } else {
      const rebuilt = await rebuildIndex(this.#adapter, this.#authors, stored);
      if (rebuilt.writes.length > 0) {
        await writeCommit(this.#adapter, {
          versions: [],
          entries: rebuilt.writes,
          deleteVersions: [],
        });
      }
      this.#sets = rebuilt.sets;
      summary = rebuilt.summary;
      // What was read whole is kept as far as the cache goes: the first reads need no second pass.
      for (const [name, state] of rebuilt.collections) this.#records.keepCollection(name, state);
    }
    this.#keys = summary.keys;
    this.#damaged = summary.damaged;
    this.#derived.clear();
    this.#entries.clear();
  }

  /** Index entries that could not be read, by key. */
  get problems(): readonly string[] {
    return this.#damaged;
  }

  #check(): void {
    if (this.#closed) throw new MincaError('closed', 'the store is closed');
  }

  /** The collections that hold versions, sorted. */
  collectionNames(): string[] {
    return [...this.#sets.keys()].filter((name) => this.#sets.get(name)!.count > 0).sort();
  }

  /** How many versions `collection` holds. */
  count(collection: string): number {
    return this.#sets.get(collection)?.count ?? 0;
  }

  /** Each collection that holds versions with how many, sorted by name, as a `hello` gives them. */
  counts(): Array<[string, number]> {
    return this.collectionNames().map((name) => [name, this.count(name)]);
  }

  /** Whether the store holds version `id` of `collection`. */
  hasVersion(collection: string, id: string): boolean {
    return this.#sets.get(collection)?.hasId(id) ?? false;
  }

  /** How many versions the store holds. */
  versionCount(): number {
    let n = 0;
    for (const set of this.#sets.values()) n += set.count;
    return n;
  }

  /** The latest timestamp of any version held, up to `atMost`; 0 when none. */
  latestTimestamp(atMost?: number): number {
    let latest = 0;
    for (const set of this.#sets.values()) latest = Math.max(latest, set.latest(atMost));
    return latest;
  }

  /** The versions of `collection` as (timestamp, id), in the set's order. */
  items(collection: string): Iterable<[number, string]> {
    return this.#sets.get(collection)?.items() ?? [];
  }

  /** An index entry read back; `undefined` (and reported) when it does not decode. */
  #decode(key: string, value: Uint8Array): VersionMeta | undefined {
    try {
      return decodeMeta(key.slice(key.lastIndexOf('/') + 1), value, this.#authors);
    } catch {
      if (!this.#damaged.includes(key)) this.#damaged = [...this.#damaged, key];
      return undefined;
    }
  }

  /** Record `id` of `collection`: its versions, heads and winner; `undefined` when none is held. */
  async record(collection: string, id: string): Promise<RecordState | undefined> {
    this.#check();
    if (!this.#sets.has(collection) || typeof id !== 'string' || !RECORD_ID.test(id))
      return undefined;
    const kept = this.#records.record(collection, id);
    if (kept || this.#records.hasWhole(collection)) return kept;
    // A small collection is read whole once, and answers every record from then on.
    if (this.count(collection) <= WHOLE_READ_VERSIONS)
      return (await this.records(collection)).records.get(id);
    const generation = this.#generation;
    const metas: VersionMeta[] = [];
    for (const [key, value] of await readEntries(
      this.#adapter,
      recordIndexPrefix(collection, id),
    )) {
      const meta = this.#decode(key, value);
      if (meta?.record === id) metas.push(meta);
    }
    const state = recordOf(metas);
    if (state && generation === this.#generation) this.#records.keepRecord(collection, id, state);
    return state;
  }

  /** Every record of `collection`, read from the index when not kept. Not to be changed. */
  async records(collection: string): Promise<CollectionState> {
    this.#check();
    const kept = this.#records.collection(collection);
    if (kept) return kept;
    const state = new CollectionState();
    if (!this.#sets.has(collection)) return state;
    const generation = this.#generation;
    for (const meta of await this.#collectionMetas(collection)) state.add(meta);
    if (generation === this.#generation) this.#records.keepCollection(collection, state);
    return state;
  }

  /**
   * The records of `collection` by id, to read through once (a listing): the kept collection's
   * when kept; one too large to keep is read from the index into its records alone, without
   * the map of its versions a kept one needs.
   */
  async recordStates(collection: string): Promise<ReadonlyMap<string, RecordState>> {
    this.#check();
    if (this.count(collection) <= COLLECTION_CACHE_VERSIONS || this.#records.hasWhole(collection))
      return (await this.records(collection)).records;
    const out = new Map<string, RecordState>();
    // A record's entries are together: they share its prefix.
    let state = new RecordState();
    for (const meta of await this.#collectionMetas(collection)) {
      if (out.get(meta.record) !== state) out.set(meta.record, (state = new RecordState()));
      state.add(meta);
    }
    return out;
  }

  /** The metas of `collection`'s index entries, in key order, each under the record it names. */
  async #collectionMetas(collection: string): Promise<VersionMeta[]> {
    const prefix = collectionIndexPrefix(collection);
    const out: VersionMeta[] = [];
    for (const [key, value] of await readEntries(this.#adapter, prefix)) {
      const meta = this.#decode(key, value);
      // The key's third part (a collection name holds no '/'), without splitting every key.
      const end = key.indexOf('/', prefix.length);
      if (meta && meta.record === key.slice(prefix.length, end < 0 ? undefined : end))
        out.push(meta);
    }
    return out;
  }

  /** Every version of `collection`, read from the index when not kept. */
  async metas(collection: string): Promise<VersionMeta[]> {
    return [...(await this.records(collection)).versions.values()];
  }

  /** The records with a version naming files that may still be a head (named-files.ts). */
  fileRecords(): Promise<Array<{ collection: string; record: string }>> {
    this.#check();
    return fileRecords(this.#adapter);
  }

  /**
   * The files with a list here that no version that may be a head names (`y/` against `x/`,
   * named-files.ts): one query where the adapter has one. Only meaningful once the store's
   * `y/` entries are complete (`NAMED_INDEX_KEY`).
   */
  unnamedFiles(): Promise<string[]> {
    this.#check();
    return unnamedFiles(this.#adapter);
  }

  /** Whether the adapter answers {@link unnamedFiles} in one query, not three listings. */
  get findsUnnamedInOneQuery(): boolean {
    return typeof this.#adapter.unnamedFiles === 'function';
  }

  /** The bodies of `ids`, decoded, in order; `undefined` where missing. Trusts what it stored. */
  getVersions(ids: readonly string[]): Promise<Array<Version | undefined>> {
    this.#check();
    return this.#bodies.versions(ids);
  }

  /**
   * The encoded bytes of `ids`, in order, `undefined` where missing, without decoding them: for
   * copying versions elsewhere (mirrors) and listing. Bytes read from the adapter are checked
   * against their id, and cached unless `keep` is false.
   */
  getVersionBytes(
    ids: readonly string[],
    options: { keep?: boolean } = {},
  ): Promise<Array<Uint8Array | undefined>> {
    this.#check();
    return this.#bodies.bytes(ids, options.keep ?? true);
  }

  /** Bodies the body cache holds at most, when it says. */
  get bodyCacheCapacity(): number | undefined {
    return this.#bodies.capacity;
  }

  /**
   * Whether `count` bodies fit in the body cache. A read of more (a listing, a page for a peer)
   * goes past it: cached, they would only push each other, and the bodies in use, out before
   * they were read again.
   */
  fitsBodyCache(count: number): boolean {
    return count <= (this.#bodies.capacity ?? Number.POSITIVE_INFINITY);
  }

  async getVersion(id: string): Promise<Version | undefined> {
    return (await this.getVersions([id]))[0];
  }

  /** The entry under `key` (not a version index entry), `undefined` when absent. */
  async get(key: string): Promise<Uint8Array | undefined> {
    this.#check();
    const known = this.#entries.get(key);
    if (known !== undefined) return known ?? undefined;
    const generation = this.#generation;
    const value = await this.#adapter.get(key);
    // Kept only if no write landed while it was being read.
    if (generation === this.#generation) this.#entries.keep(key, value ?? null);
    return value;
  }

  /** Keys under `prefix`, read from the adapter. */
  async list(prefix: string): Promise<string[]> {
    this.#check();
    return this.#adapter.list(prefix);
  }

  /**
   * Writes versions (with their index entries) and entries in one change. Versions already held
   * are skipped. Returns the versions that were new. Writes run one at a time, in call order.
   */
  commit(change: StoreChange): Promise<Version[]> {
    this.#check();
    const run = this.#writes.then(() => this.#commit(change));
    this.#writes = run.catch(() => undefined);
    return run;
  }

  async #commit(change: StoreChange): Promise<Version[]> {
    this.#check();
    const fresh = new Map<string, Version>();
    for (const v of change.versions ?? []) {
      if (!fresh.has(v.id) && !this.hasVersion(v.collection, v.id)) fresh.set(v.id, v);
    }
    const versions = [...fresh.values()];
    const metas = versions.map((v) => metaOf(v, this.#authors));
    const { entries, plans, keys, damaged } = planVersions(
      this.#sets,
      { keys: this.#keys, damaged: this.#damaged },
      versions,
      metas,
      fresh,
    );
    entries.push(...(change.entries ?? []));
    if (entries.length === 0) return [];
    this.#generation++;
    try {
      await writeCommit(this.#adapter, {
        versions: versions.map((v) => [v.id, v.bytes] as const),
        entries,
        deleteVersions: [],
      });
    } catch (cause) {
      // What landed is unknown: forget cached entries so the next read asks the adapter.
      this.#entries.clear();
      throw cause instanceof MincaError
        ? cause
        : new MincaError('storage', 'the store could not be written', { cause });
    } finally {
      this.#generation++;
    }
    for (const plan of plans) {
      // A collection this write starts is known whole: its records need no reading.
      if (!this.#sets.has(plan.set.name))
        this.#records.keepCollection(plan.set.name, new CollectionState());
      plan.set.apply(plan);
      this.#sets.set(plan.set.name, plan.set);
      this.#derived.delete(plan.set.name);
    }
    this.#keys = keys;
    this.#damaged = damaged;
    const cacheBodies = versions.length <= CACHED_WRITE_MOST;
    versions.forEach((v, i) => {
      this.#records.add(v.collection, metas[i]!);
      if (cacheBodies) this.#bodies.set(v.id, v.bytes);
    });
    for (const e of change.entries ?? []) this.#entries.keep(e.key, e.value ?? null);
    return versions;
  }

  /**
   * A value derived from a collection's versions: built on first use, and again only after the
   * collection changed. (Sync's sets are kept, not rebuilt: {@link syncSet}.)
   */
  async derived<T>(collection: string, build: (versions: Iterable<VersionMeta>) => T): Promise<T> {
    if (!this.#derived.has(collection)) {
      const generation = this.#generation;
      const value = build((await this.records(collection)).versions.values());
      if (generation !== this.#generation) return value;
      this.#derived.set(collection, value);
    }
    return this.#derived.get(collection) as T;
  }

  /**
   * The collection's Negentropy set now (spec 05 §9.7): an item (timestamp, id) per version.
   * Kept as versions land: a commit makes new blocks only where they landed. A snapshot never
   * changes, so a session keeps the one it started with.
   */
  syncSet(collection: string): NegentropySnapshot {
    return (this.#sets.get(collection) ?? EMPTY_SET).snapshot();
  }

  /** The Negentropy fingerprint of every collection together, as hex. Equal data, equal print. */
  fingerprint(): string {
    return fingerprintOf([...this.#sets.values()].map((s) => ({ count: s.count, sum: s.sum() })));
  }

  /** Reads everything again, after another writer changed the same store. */
  async invalidate(): Promise<void> {
    this.#check();
    await this.#writes;
    this.#generation++;
    // The pages may be behind what the other writer added: the index is read whole.
    await this.#load(true);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#writes;
    this.#closed = true;
    await this.#adapter.close?.();
  }
}
