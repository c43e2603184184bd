// The store both sides of the IndexedDB/SQLite benchmark hold: the same versions, made the same
// way in Node and in the page from one seeded generator, so the two stores hold equal bytes.
// Index entries are the real layout (`v/<collection>/<record>/<id>`, a CBOR meta); the first
// Store.open over them writes the set's pages and the summary, as a store that synced them would
// hold. Bodies are filler of a sealed version's size: nothing here opens them.
import { type Commit, encodeCbor, type StorageAdapter, Store } from '@minca/core';

/** The collections and how many records each holds; every FIFTH record has a second version. */
export const COLLECTIONS = [
  { name: 'app.post', records: 50_000, edited: true },
  { name: 'app.comment', records: 30_000, edited: false },
  { name: 'app.like', records: 10_000, edited: false },
] as const;
/** Versions in all: 50,000 + 10,000 edits + 30,000 + 10,000. */
export const VERSIONS = 100_000;
/** A sealed version's size, about: envelope, signature, sealed body. */
export const BODY_BYTES = 360;
const BASE_MS = 1_700_000_000_000;
const AUTHOR = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';
const FILL_BATCH = 5_000;

/** xorshift32: the same numbers in Node and in the page. */
export function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/** 64 hex digits from the generator: a version id's shape. */
export function idFrom(next: () => number): string {
  let hex = '';
  for (let i = 0; i < 8; i++) hex += next().toString(16).padStart(8, '0');
  return hex;
}

function bytesOfHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** A body of {@link BODY_BYTES} that differs per version. */
export function bodyOf(next: () => number): Uint8Array {
  const out = new Uint8Array(BODY_BYTES);
  const words = new Uint32Array(out.buffer);
  for (let i = 0; i < words.length; i++) words[i] = next();
  return out;
}

export interface MadeVersion {
  collection: string;
  record: string;
  id: string;
  meta: Uint8Array;
  body: Uint8Array;
}

export const recordId = (collection: string, n: number) => `${collection.slice(4)}${n}`;
export const indexKey = (v: { collection: string; record: string; id: string }) =>
  `v/${v.collection}/${v.record}/${v.id}`;

/** Every version of the store, in the order they are written. */
export function* versions(): Generator<MadeVersion> {
  const next = random(19);
  let t = BASE_MS;
  for (const { name, records, edited } of COLLECTIONS) {
    for (let n = 0; n < records; n++) {
      const record = recordId(name, n);
      const first = idFrom(next);
      const second = edited && n % 5 === 0;
      const meta = (p: string[]) =>
        encodeCbor({ r: record, p: p.map(bytesOfHex), t: (t += 1000), a: AUTHOR, f: [], d: false });
      yield {
        collection: name,
        record,
        id: first,
        meta: meta([]),
        body: bodyOf(next),
      };
      if (second) {
        const id = idFrom(next);
        yield {
          collection: name,
          record,
          id,
          meta: meta([first]),
          body: bodyOf(next),
        };
      }
    }
  }
}

/**
 * Writes every version and its index entry in commits of {@link FILL_BATCH}, then opens a Store
 * over them once: that first open reads the index whole and writes the pages and the summary.
 */
export async function fill(adapter: StorageAdapter): Promise<void> {
  let commit: Commit = { versions: [], entries: [], deleteVersions: [] };
  const flush = async () => {
    await adapter.commit!(commit);
    commit = { versions: [], entries: [], deleteVersions: [] };
  };
  let made = 0;
  for (const v of versions()) {
    (commit.versions as Array<readonly [string, Uint8Array]>).push([v.id, v.body]);
    (commit.entries as Array<{ key: string; value: Uint8Array }>).push({
      key: indexKey(v),
      value: v.meta,
    });
    if (commit.versions.length === FILL_BATCH) await flush();
    made++;
  }
  if (commit.versions.length > 0) await flush();
  if (made !== VERSIONS) throw new Error(`made ${made} versions, not ${VERSIONS}`);
  const store = await Store.open(adapter);
  if (store.versionCount() !== VERSIONS)
    throw new Error(`the store holds ${store.versionCount()} versions, not ${VERSIONS}`);
  // Not store.close(): that closes the adapter, which the caller owns.
}
