/**
 * The entries a space's store keeps about its versions (spec 05 §5.2), beside the bodies:
 * - `v/<collection>/<record>/<version id>`: the index entry, what heads and winners need;
 * - `x/<collection>/<record>/<version id>`: the files a version names, while it may be a head;
 * - `y/<file id>/<collection>/<record>/<version id>`: the same by file, one per file a version
 *   names, kept when the version is superseded: a file is named through it while its `x/` is
 *   there, so the files nothing names are found in one query (named-files.ts);
 * - `n/<collection>/<first item>`: the collection's set, a page per block (set-pages.ts);
 * - `n`: the summary, each collection's count and sum, so a store opens without reading pages
 *   it can check instead, and a closed store's status reads one entry.
 */
import { flatString, fromHex, toHex } from './bytes.js';
import { decodeStrict, encodeCbor } from './encoding.js';
import { MincaError } from './errors.js';
import { MAX_META_BYTES, readMetaFast } from './index-meta-read.js';
import type { VersionMeta } from './record-state.js';
import type { Version } from './version.js';

/** Prefix of the index entries, one per version held. */
export const VERSION_INDEX_PREFIX = 'v/';
/** Prefix of the entries naming files: one per version naming files, until superseded. */
export const FILE_INDEX_PREFIX = 'x/';
/** Prefix of the entries naming files by file id, one per (file, version naming it). */
export const NAMED_FILE_PREFIX = 'y/';
/** The summary's key. */
export const SUMMARY_KEY = 'n';
/** The summary's format. */
const SUMMARY_FORMAT = 1;

/** The index entry of version `id` of record `record` in `collection`. */
export function versionIndexKey(collection: string, record: string, id: string): string {
  return `${VERSION_INDEX_PREFIX}${collection}/${record}/${id}`;
}

export const recordIndexPrefix = (collection: string, record: string) =>
  `${VERSION_INDEX_PREFIX}${collection}/${record}/`;

export const collectionIndexPrefix = (collection: string) =>
  `${VERSION_INDEX_PREFIX}${collection}/`;

export function fileIndexKey(collection: string, record: string, id: string): string {
  return `${FILE_INDEX_PREFIX}${collection}/${record}/${id}`;
}

/** The `y/` entry of file `file` named by version `id` of `record` in `collection`. */
export function namedFileKey(file: string, collection: string, record: string, id: string): string {
  return `${NAMED_FILE_PREFIX}${file}/${collection}/${record}/${id}`;
}

/** The value of a `y/` entry: the key says it all. */
export const NAMED_FILE_VALUE: Uint8Array = new Uint8Array([1]);

/** Shared by every meta with no superseded versions or no files: most have neither. */
const NO_IDS: readonly string[] = Object.freeze([]);

/** Each author's DID once, shared by every meta that names it: a space has few. */
export type Authors = Map<string, string>;

function sharedAuthor(authors: Authors, did: string): string {
  let author = authors.get(did);
  if (author === undefined) authors.set(did, (author = flatString(did)));
  return author;
}

/**
 * A version's meta, to keep: its record id made flat and its author shared, as in decodeMeta
 * (its ids are flat already: decodeVersion makes them with toHex).
 */
export function metaOf(v: Version, authors: Authors): VersionMeta {
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

export function encodeMeta(m: VersionMeta): Uint8Array {
  return encodeCbor({
    r: m.record,
    p: m.supersedes.map(fromHex),
    t: m.timestamp,
    a: m.author,
    f: m.files.map(fromHex),
    d: m.deleted,
  });
}

function idList(value: unknown): readonly string[] {
  if (!Array.isArray(value) || !value.every((x) => x instanceof Uint8Array && x.length === 32)) {
    throw new MincaError('corrupt', 'bad id list');
  }
  return value.length === 0 ? NO_IDS : (value as Uint8Array[]).map(toHex);
}

/**
 * Decodes an index entry. Its strings are made flat and its authors shared through `authors`:
 * a store may keep many of these at once.
 */
export function decodeMeta(id: string, bytes: Uint8Array, authors: Authors): VersionMeta {
  // Read in one pass when in the one form encodeMeta writes; strictly otherwise.
  const fast = readMetaFast(bytes);
  const m = (fast ?? decodeStrict(bytes, { maxBytes: MAX_META_BYTES, maxDepth: 2 })) as Record<
    string,
    unknown
  >;
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
    // The one-pass read makes its text in one piece already: flat, and its own.
    record: fast ? fast.r : flatString(m.r),
    supersedes: idList(m.p),
    timestamp: m.t as number,
    author: sharedAuthor(authors, m.a),
    files: idList(m.f),
    deleted: m.d,
  };
}

export const encodeFiles = (files: readonly string[]) => encodeCbor(files.map(fromHex));

/** The file ids an `x/` entry holds; `corrupt` when it holds anything else. */
export function decodeFiles(bytes: Uint8Array): readonly string[] {
  return idList(decodeStrict(bytes, { maxBytes: 4096, maxDepth: 2 }));
}

/** What the summary says of one collection. */
export interface CollectionSummary {
  count: number;
  /** The sum of its ids, 32 bytes little-endian (Negentropy §5). */
  sum: Uint8Array;
}

/** The summary of a store's versions (spec 05 §5.2). */
export interface Summary {
  collections: Map<string, CollectionSummary>;
  /** Entries under `v/`, damaged ones included: what the store checks the index against. */
  keys: number;
  /** The keys of index entries that could not be read, as found when the index was last read. */
  damaged: string[];
}

/** Damaged keys a summary names at most. */
const MAX_DAMAGED = 256;

export function encodeSummary(summary: Summary): Uint8Array {
  const c = [...summary.collections]
    .filter(([, s]) => s.count > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, s]) => [name, s.count, s.sum]);
  const b = summary.damaged.slice(0, MAX_DAMAGED);
  return encodeCbor({ v: SUMMARY_FORMAT, c, k: summary.keys, ...(b.length > 0 ? { b } : {}) });
}

/** The summary, or `undefined` when it is of another format or damaged: the store is read again. */
export function decodeSummary(bytes: Uint8Array): Summary | undefined {
  try {
    const m = decodeStrict(bytes, { maxBytes: 1 << 20, maxDepth: 3 }) as Record<string, unknown>;
    if (m?.v !== SUMMARY_FORMAT || !Array.isArray(m.c) || !Number.isSafeInteger(m.k))
      return undefined;
    const collections = new Map<string, CollectionSummary>();
    for (const entry of m.c as unknown[]) {
      if (!Array.isArray(entry) || entry.length !== 3) return undefined;
      const [name, count, sum] = entry as [unknown, unknown, unknown];
      if (typeof name !== 'string' || collections.has(name)) return undefined;
      if (!Number.isSafeInteger(count) || (count as number) < 1) return undefined;
      if (!(sum instanceof Uint8Array) || sum.length !== 32) return undefined;
      collections.set(name, { count: count as number, sum });
    }
    const damaged = m.b ?? [];
    if (!Array.isArray(damaged) || !damaged.every((k) => typeof k === 'string')) return undefined;
    return { collections, keys: m.k as number, damaged: damaged as string[] };
  } catch {
    return undefined;
  }
}
