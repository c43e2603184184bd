/**
 * The store: a node's view of one store, kept in memory over its adapter.
 *
 * It reads the version index once, then keeps each collection's records and the entries it
 * read or wrote. Version bodies go through an LRU cache (its own, or its factory's shared one):
 * a body never changes, so caching it is always safe. Writes are serialised, and an entry read
 * while a write was landing is not kept, since it may predate that write. Layout: spec 05 §5.
 */
import type { BodyCache, EntryWrite, StorageAdapter } from './adapter.js';
import { flatString, fromHex, toHex } from './bytes.js';
import { decodeStrict, encodeCbor } from './encoding.js';
import { MincaError } from './errors.js';
import { IdSum } from './id-sum.js';
import { hashId, VERSION_HEX } from './ids.js';
import { LruBodyCache } from './lru.js';
import { isCollectionName } from './names.js';
import { NegentropySet, type NegentropySnapshot } from './negentropy/set.js';
import { CollectionState, type VersionMeta } from './record-state.js';
import { readEntries, readVersions, writeCommit } from './store-io.js';
import { decodeVersion, type Version } from './version.js';

/** Bodies a store caches when its factory shares no cache. */
export const DEFAULT_BODY_CACHE = 50_000;

/** Prefix of the index entries: `v/<collection>/<version id>`, one per version held. */
export const VERSION_INDEX_PREFIX = 'v/';
/** Entries larger than this (file chunks) are read from the adapter each time, not kept. */
const MAX_KEPT_ENTRY_BYTES = 16 * 1024;

export function versionIndexKey(collection: string, id: string): string {
  return `${VERSION_INDEX_PREFIX}${collection}/${id}`;
}

/** A change to write in one go: new versions with their index entries, plus other entries. */
export interface StoreChange {
  versions?: readonly Version[];
  entries?: readonly EntryWrite[];
}

export interface StoreOptions {
  /** A cache shared with other stores; otherwise the store keeps its own. */
  bodyCache?: BodyCache;
}

/** Shared by every meta with no superseded versions or no files: most have neither. */
const NO_IDS: readonly string[] = Object.freeze([]);

/**
 * A version's meta, to keep: its record id made flat and its author shared, as in decodeMeta
 * (its ids are flat already: decodeVersion makes them with toHex).
 */
function metaOf(v: Version, authors: Map<string, string>): VersionMeta {
  return {
    id: v.id,
    record: flatString(v.record),
    supersedes: v.supersedes.length === 0 ? NO_IDS : v.supersedes,
    timestamp: v.timestamp,
    author: sharedAuthor(authors, v.author),
    files: v.files.length === 0 ? NO_IDS : v.files,
    deleted: v.sealedBody === null,
  };
}

function sharedAuthor(authors: Map<string, string>, did: string): string {
  let author = authors.get(did);
  if (author === undefined) authors.set(did, (author = flatString(did)));
  return author;
}

function encodeMeta(m: VersionMeta): Uint8Array {
  return encodeCbor({
    r: m.record,
    p: m.supersedes.map(fromHex),
    t: m.timestamp,
    a: m.author,
    f: m.files.map(fromHex),
    d: m.deleted,
  });
}

/**
 * Decodes an index entry. Its strings are made flat and its authors shared through `authors`
 * (a space has few): a host keeps one of these per version it holds (spec 05 §7.3).
 */
function decodeMeta(id: string, bytes: Uint8Array, authors: Map<string, string>): VersionMeta {
  const m = decodeStrict(bytes, { maxBytes: 16 * 1024, maxDepth: 2 }) as Record<string, unknown>;
  const ids = (value: unknown) => {
    if (!Array.isArray(value) || !value.every((x) => x instanceof Uint8Array && x.length === 32)) {
      throw new MincaError('corrupt', 'bad id list');
    }
    return value.length === 0 ? NO_IDS : (value as Uint8Array[]).map(toHex);
  };
  if (
    typeof m?.r !== 'string' ||
    !Number.isSafeInteger(m.t) ||
    (m.t as number) < 0 ||
    typeof m.a !== 'string' ||
    typeof m.d !== 'boolean'
  ) {
    throw new MincaError('corrupt', 'bad index entry');
  }
  return {
    id,
    record: flatString(m.r),
    supersedes: ids(m.p),
    timestamp: m.t as number,
    author: sharedAuthor(authors, m.a),
    files: ids(m.f),
    deleted: m.d,
  };
}

export class Store {
  readonly #adapter: StorageAdapter;
  readonly #bodies: BodyCache;
  #collections = new Map<string, CollectionState>();
  /** Values derived from one collection, dropped when it changes. */
  #derived = new Map<string, unknown>();
  /** Each collection's Negentropy set, built on first use, then kept as versions land. */
  #sets = new Map<string, NegentropySet>();
  /** The sum of every version id held, for the fingerprint. */
  #sum = new IdSum();
  /** Each author's DID, once: shared by every meta kept. */
  readonly #authors = new Map<string, string>();
  /** Entries read or written: `null` means known absent. */
  #entries = new Map<string, Uint8Array | null>();
  /** Index entries that did not decode when the store was read, by key. */
  #problems: string[] = [];
  #writes: Promise<unknown> = Promise.resolve();
  /** Bumped by every write and invalidation, so a read can tell one landed under it. */
  #generation = 0;
  #closed = false;

  private constructor(adapter: StorageAdapter, options: StoreOptions) {
    this.#adapter = adapter;
    this.#bodies = options.bodyCache ?? new LruBodyCache(DEFAULT_BODY_CACHE);
  }

  /** Opens a store over `adapter`, reading its version index. */
  static async open(adapter: StorageAdapter, options: StoreOptions = {}): Promise<Store> {
    const store = new Store(adapter, options);
    await store.#load();
    return store;
  }

  async #load(): Promise<void> {
    const collections = new Map<string, CollectionState>();
    const problems: string[] = [];
    const authors = this.#authors;
    for (const [key, value] of await readEntries(this.#adapter, VERSION_INDEX_PREFIX)) {
      const rest = key.slice(VERSION_INDEX_PREFIX.length);
      const slash = rest.lastIndexOf('/');
      const collection = rest.slice(0, slash);
      const id = rest.slice(slash + 1);
      try {
        if (!isCollectionName(collection) || !VERSION_HEX.test(id)) throw new Error('bad key');
        let state = collections.get(collection);
        if (!state) collections.set(collection, (state = new CollectionState()));
        // The id is a slice of the key, which it would keep alive: kept flat instead.
        state.add(decodeMeta(flatString(id), value, authors));
      } catch {
        // A damaged entry is left as it is and reported; the rest of the store still opens.
        problems.push(key);
      }
    }
    const sum = new IdSum();
    for (const state of collections.values())
      for (const id of state.versions.keys()) sum.add(fromHex(id));
    this.#collections = collections;
    this.#problems = problems;
    this.#sum = sum;
    this.#derived.clear();
    this.#sets.clear();
    this.#entries.clear();
  }

  /** Index entries that could not be read, by key. */
  get problems(): readonly string[] {
    return this.#problems;
  }

  #check(): void {
    if (this.#closed) throw new MincaError('closed', 'the store is closed');
  }

  /** The collections that hold versions, sorted. */
  collectionNames(): string[] {
    return [...this.#collections.keys()].sort();
  }

  collection(name: string): CollectionState | undefined {
    return this.#collections.get(name);
  }

  /** Whether the store holds version `id` (of any collection). */
  hasVersion(collection: string, id: string): boolean {
    return this.#collections.get(collection)?.versions.has(id) ?? false;
  }

  /** How many versions the store holds. */
  versionCount(): number {
    let n = 0;
    for (const c of this.#collections.values()) n += c.versions.size;
    return n;
  }

  /** The bodies of `ids`, decoded, in order; `undefined` where missing. Trusts what it stored. */
  async getVersions(ids: readonly string[]): Promise<Array<Version | undefined>> {
    this.#check();
    const out: Array<Version | undefined> = ids.map(() => undefined);
    const missing: number[] = [];
    ids.forEach((id, i) => {
      const bytes = this.#bodies.get(id);
      if (bytes) out[i] = decodeVersion(bytes, { trusted: true });
      else missing.push(i);
    });
    if (missing.length > 0) {
      const read = await readVersions(
        this.#adapter,
        missing.map((i) => ids[i]!),
      );
      read.forEach((bytes, j) => {
        if (!bytes) return;
        const i = missing[j]!;
        const version = decodeVersion(bytes, { trusted: true });
        if (version.id !== ids[i])
          throw new MincaError('corrupt', `version ${ids[i]} does not hash to its id`);
        this.#bodies.set(version.id, bytes);
        out[i] = version;
      });
    }
    return out;
  }

  /**
   * The encoded bytes of `ids`, in order, `undefined` where missing, without decoding them: for
   * copying versions elsewhere (mirrors). Bytes read from the adapter are checked against their id.
   */
  async getVersionBytes(ids: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    this.#check();
    const out: Array<Uint8Array | undefined> = ids.map((id) => this.#bodies.get(id));
    const missing = ids.flatMap((_, i) => (out[i] ? [] : [i]));
    if (missing.length === 0) return out;
    const read = await readVersions(
      this.#adapter,
      missing.map((i) => ids[i]!),
    );
    read.forEach((bytes, j) => {
      if (!bytes) return;
      const id = ids[missing[j]!]!;
      if (toHex(hashId(bytes)) !== id)
        throw new MincaError('corrupt', `version ${id} does not hash to its id`);
      this.#bodies.set(id, bytes);
      out[missing[j]!] = bytes;
    });
    return out;
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
    // Keep it only if no write landed while it was being read, and it is small (not a chunk).
    if (generation === this.#generation && !(value && value.length > MAX_KEPT_ENTRY_BYTES))
      this.#entries.set(key, value ?? null);
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
      if (!this.hasVersion(v.collection, v.id)) fresh.set(v.id, v);
    }
    const versions = [...fresh.values()];
    const metas = versions.map((v) => metaOf(v, this.#authors));
    const entries: EntryWrite[] = [
      ...versions.map((v, i) => ({
        key: versionIndexKey(v.collection, v.id),
        value: encodeMeta(metas[i]!),
      })),
      ...(change.entries ?? []),
    ];
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
    for (const [i, v] of versions.entries()) {
      let state = this.#collections.get(v.collection);
      if (!state) this.#collections.set(v.collection, (state = new CollectionState()));
      state.add(metas[i]!);
      const id = fromHex(v.id);
      this.#sum.add(id);
      this.#sets.get(v.collection)?.insert(v.timestamp, id);
      this.#bodies.set(v.id, v.bytes);
      this.#derived.delete(v.collection);
    }
    for (const e of change.entries ?? []) {
      if (e.value && e.value.length > MAX_KEPT_ENTRY_BYTES) this.#entries.delete(e.key);
      else this.#entries.set(e.key, e.value ?? null);
    }
    return versions;
  }

  /**
   * A value derived from a collection's versions: built on first use, and again only after the
   * collection changed. (Sync's sets are kept, not rebuilt: {@link syncSet}.)
   */
  derived<T>(collection: string, build: (versions: Iterable<VersionMeta>) => T): T {
    if (!this.#derived.has(collection)) {
      this.#derived.set(
        collection,
        build(this.#collections.get(collection)?.versions.values() ?? []),
      );
    }
    return this.#derived.get(collection) as T;
  }

  /**
   * The collection's Negentropy set now (spec 05 §9.7): an item (timestamp, id) per version.
   * Built on first use, then kept: a commit adds its versions, and the next call makes new
   * blocks only where they landed. A snapshot never changes, so a session keeps the one it
   * started with; {@link invalidate} builds the set again from what the store holds.
   */
  syncSet(collection: string): NegentropySnapshot {
    let set = this.#sets.get(collection);
    if (!set) {
      set = new NegentropySet();
      for (const meta of this.#collections.get(collection)?.versions.values() ?? [])
        set.insertHex(meta.timestamp, meta.id);
      this.#sets.set(collection, set);
    }
    return set.snapshot();
  }

  /** The Negentropy fingerprint of every collection together, as hex. Equal data, equal print. */
  fingerprint(): string {
    return toHex(this.#sum.fingerprint());
  }

  /** Reads everything again, after another writer changed the same store. */
  async invalidate(): Promise<void> {
    this.#check();
    await this.#writes;
    this.#generation++;
    await this.#load();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#writes;
    this.#closed = true;
    await this.#adapter.close?.();
  }
}
