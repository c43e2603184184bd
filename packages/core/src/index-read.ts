/**
 * Reading a store's index as it opens (spec 05 §5.2, §5.4): the sets from their pages, when the
 * pages match the summary and the summary the index; else the whole index, for a store
 * from before pages and summaries (whose index entries, `v/<collection>/<id>`, are moved under
 * their record), one another writer changed (`invalidate`), or one whose pages or summary don't
 * match what it holds. It derives the sets, the pages, the file entries and the summary from
 * the index entries alone, and says which entries to write so the store holds exactly those.
 */
import type { EntryWrite, StorageAdapter } from './adapter.js';
import { flatString } from './bytes.js';
import { CollectionSet } from './collection-set.js';
import { RECORD_ID, VERSION_HEX } from './ids.js';
import {
  type Authors,
  decodeMeta,
  decodeSummary,
  encodeFiles,
  encodeMeta,
  encodeSummary,
  FILE_INDEX_PREFIX,
  fileIndexKey,
  NAMED_FILE_PREFIX,
  NAMED_FILE_VALUE,
  namedFileKey,
  SUMMARY_KEY,
  type Summary,
  VERSION_INDEX_PREFIX,
  versionIndexKey,
} from './index-entries.js';
import { isCollectionName } from './names.js';
import type { Block } from './negentropy/block.js';
import { ItemBuffer } from './negentropy/item-buffer.js';
import { CollectionState } from './record-state.js';
import { decodePage, encodePage, PAGE_PREFIX, pageKey } from './set-pages.js';
import { countEntries, readEntries } from './store-io.js';

export interface RebuiltIndex {
  sets: Map<string, CollectionSet>;
  /** Every collection's records, as read: the caller keeps what fits its cache. */
  collections: Map<string, CollectionState>;
  summary: Summary;
  /** What to write so the pages, file entries and summary are those of the index. */
  writes: EntryWrite[];
}

/** An index key's parts: `record` is absent in the layout from before records were keys. */
function parseKey(key: string): { collection: string; record?: string; id: string } | undefined {
  const parts = key.slice(VERSION_INDEX_PREFIX.length).split('/');
  const id = parts[parts.length - 1]!;
  const collection = parts[0]!;
  if (!isCollectionName(collection) || !VERSION_HEX.test(id)) return undefined;
  if (parts.length === 2) return { collection, id };
  if (parts.length === 3 && RECORD_ID.test(parts[1]!)) return { collection, record: parts[1]!, id };
  return undefined;
}

const sameBytes = (a: Uint8Array | undefined, b: Uint8Array) =>
  a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

/** Puts the entries of `wanted` that `held` lacks or holds otherwise; deletes the rest of `held`. */
function reconcile(
  held: ReadonlyMap<string, Uint8Array>,
  wanted: ReadonlyMap<string, Uint8Array>,
  writes: EntryWrite[],
): void {
  for (const [key, value] of wanted)
    if (!sameBytes(held.get(key), value)) writes.push({ key, value });
  for (const key of held.keys()) if (!wanted.has(key)) writes.push({ key, value: undefined });
}

/**
 * The sets the store's pages hold, if they check out: the summary reads, every page decodes in
 * order, each collection's count and sum are the summary's, and the index holds as many entries
 * as the summary says (so entries written without pages, by another writer or an older minca,
 * are found). `undefined` otherwise: the index is read whole.
 */
export async function readStoredSets(
  adapter: StorageAdapter,
  stored: Uint8Array | undefined,
): Promise<{ sets: Map<string, CollectionSet>; summary: Summary } | undefined> {
  const summary = stored && decodeSummary(stored);
  if (!summary) return undefined;
  const blocks = new Map<string, Block[]>();
  try {
    for (const [key, value] of await readEntries(adapter, PAGE_PREFIX)) {
      const collection = key.slice(PAGE_PREFIX.length, key.lastIndexOf('/'));
      if (!summary.collections.has(collection)) return undefined;
      let list = blocks.get(collection);
      if (!list) blocks.set(collection, (list = []));
      list.push(decodePage(collection, key, value, list[list.length - 1]));
    }
  } catch {
    return undefined;
  }
  const sets = new Map<string, CollectionSet>();
  for (const [name, expected] of summary.collections) {
    const set = new CollectionSet(name, blocks.get(name) ?? []);
    if (set.count !== expected.count || !sameBytes(expected.sum, set.sum())) return undefined;
    sets.set(name, set);
  }
  if ((await countEntries(adapter, VERSION_INDEX_PREFIX)) !== summary.keys) return undefined;
  return { sets, summary };
}

/** Reads the whole index; `stored` is the summary the store holds, if any. */
export async function rebuildIndex(
  adapter: StorageAdapter,
  authors: Authors,
  stored: Uint8Array | undefined,
): Promise<RebuiltIndex> {
  const collections = new Map<string, CollectionState>();
  const damaged: string[] = [];
  const writes: EntryWrite[] = [];
  for (const [key, value] of await readEntries(adapter, VERSION_INDEX_PREFIX)) {
    const parsed = parseKey(key);
    try {
      if (!parsed) throw new Error('bad key');
      // The id is a slice of the key, which it would keep alive: kept flat instead.
      const meta = decodeMeta(flatString(parsed.id), value, authors);
      if (parsed.record === undefined) {
        // The layout from before: moved under its record, in the writes below.
        if (!RECORD_ID.test(meta.record)) throw new Error('bad record id');
        writes.push(
          {
            key: versionIndexKey(parsed.collection, meta.record, meta.id),
            value: encodeMeta(meta),
          },
          { key, value: undefined },
        );
      } else if (parsed.record !== meta.record) {
        throw new Error('the entry is of another record');
      }
      let state = collections.get(parsed.collection);
      if (!state) collections.set(parsed.collection, (state = new CollectionState()));
      state.add(meta);
    } catch {
      // A damaged entry is left as it is and reported; the rest of the store still opens.
      damaged.push(key);
    }
  }

  const sets = new Map<string, CollectionSet>();
  const pages = new Map<string, Uint8Array>();
  const files = new Map<string, Uint8Array>();
  const named = new Set<string>();
  let versions = 0;
  for (const [name, state] of collections) {
    const items = new ItemBuffer();
    for (const meta of state.versions.values()) items.pushHex(meta.timestamp, meta.id);
    const set = CollectionSet.of(name, items.take());
    sets.set(name, set);
    versions += set.count;
    for (const block of set.blocks) pages.set(pageKey(name, block), encodePage(block));
    for (const [record, rs] of state.records)
      for (const head of rs.heads)
        if (head.files.length > 0) {
          files.set(fileIndexKey(name, record, head.id), encodeFiles(head.files));
          for (const file of head.files) named.add(namedFileKey(file, name, record, head.id));
        }
  }
  // A store that never had a summary and holds no index entry has no pages either: a new one.
  const fresh = stored === undefined && collections.size === 0 && damaged.length === 0;
  if (!fresh) {
    reconcile(new Map(await readEntries(adapter, PAGE_PREFIX)), pages, writes);
    reconcile(new Map(await readEntries(adapter, FILE_INDEX_PREFIX)), files, writes);
    // `y/` entries of versions no longer heads name nothing (their `x/` is gone): only the
    // missing ones are written.
    for (const key of await adapter.list(NAMED_FILE_PREFIX)) named.delete(key);
  }
  for (const key of named) writes.push({ key, value: NAMED_FILE_VALUE });
  const summary: Summary = {
    collections: new Map(
      [...sets].map(([name, set]) => [name, { count: set.count, sum: set.sum() }]),
    ),
    keys: versions + damaged.length,
    damaged,
  };
  const bytes = encodeSummary(summary);
  if (!fresh && !sameBytes(stored, bytes)) writes.push({ key: SUMMARY_KEY, value: bytes });
  return { sets, collections, summary, writes };
}
