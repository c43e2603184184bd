/**
 * The records a store read lately (spec 05 §5.4): whole collections up to a budget of versions,
 * and single records up to a count, the one used longest ago going first. The index stays in
 * the store: what is here is a copy kept up to date by the store's own writes, and dropped
 * whenever the store is read again.
 */
import { CollectionState, RecordState, type VersionMeta } from './record-state.js';

/** Versions of whole collections a store keeps at most. */
export const COLLECTION_CACHE_VERSIONS = 16_384;
/** Single records a store keeps at most. */
export const RECORD_CACHE_RECORDS = 1024;

export class RecordCache {
  readonly #collections = new Map<string, CollectionState>();
  #versions = 0;
  readonly #records = new Map<string, RecordState>();

  /** A whole collection, if kept. */
  collection(name: string): CollectionState | undefined {
    const state = this.#collections.get(name);
    if (state) {
      this.#collections.delete(name);
      this.#collections.set(name, state);
    }
    return state;
  }

  /** Keeps a whole collection just read, if it fits the budget. */
  keepCollection(name: string, state: CollectionState): void {
    const size = state.versions.size;
    if (size > COLLECTION_CACHE_VERSIONS) return;
    this.#dropCollection(name);
    while (this.#versions + size > COLLECTION_CACHE_VERSIONS) {
      this.#dropCollection(this.#collections.keys().next().value!);
    }
    this.#collections.set(name, state);
    this.#versions += size;
  }

  #dropCollection(name: string): void {
    const state = this.#collections.get(name);
    if (!state) return;
    this.#collections.delete(name);
    this.#versions -= state.versions.size;
  }

  /** A record, from a whole collection kept or on its own. */
  record(collection: string, id: string): RecordState | undefined {
    const whole = this.#collections.get(collection);
    if (whole) return whole.records.get(id);
    const key = `${collection}/${id}`;
    const state = this.#records.get(key);
    if (state) {
      this.#records.delete(key);
      this.#records.set(key, state);
    }
    return state;
  }

  /** Whether the whole of `collection` is kept (so a record absent from it is absent). */
  hasWhole(collection: string): boolean {
    return this.#collections.has(collection);
  }

  keepRecord(collection: string, id: string, state: RecordState): void {
    const key = `${collection}/${id}`;
    this.#records.delete(key);
    this.#records.set(key, state);
    if (this.#records.size > RECORD_CACHE_RECORDS)
      this.#records.delete(this.#records.keys().next().value!);
  }

  /** A version the store just wrote, added wherever its record is kept. */
  add(collection: string, meta: VersionMeta): void {
    const whole = this.#collections.get(collection);
    if (whole?.add(meta)) this.#versions++;
    this.#records.get(`${collection}/${meta.record}`)?.add(meta);
    if (this.#versions > COLLECTION_CACHE_VERSIONS && whole) this.#dropCollection(collection);
  }

  clear(): void {
    this.#collections.clear();
    this.#records.clear();
    this.#versions = 0;
  }
}

/** A record's state from its index entries. */
export function recordOf(metas: readonly VersionMeta[]): RecordState | undefined {
  if (metas.length === 0) return undefined;
  const state = new RecordState();
  const seen = new Set<string>();
  for (const meta of metas) {
    if (seen.has(meta.id)) continue;
    seen.add(meta.id);
    state.add(meta);
  }
  return state;
}

export { CollectionState };
