// @minca/idb under fake-indexeddb in Node: 10,000 version puts in batches of 100, and a cold
// open reading 10,000 entries, each beside raw idb calls doing the same on the same fake
// IndexedDB in the same run, so the ratio is the adapter's own cost.
import 'fake-indexeddb/auto';
import { createRequire } from 'node:module';
import { indexedDBStores } from '@minca/idb';
import { type Benchmark, type Figure, median } from '../harness.js';

const COUNT = 10_000;
const BATCH = 100;
const BODY_BYTES = 200;
const RUNS = 7;

/** The part of idb's API the baseline uses (idb is @minca/idb's dependency, not the bench's). */
interface RawTransaction {
  objectStore(name: string): {
    put(value: unknown, key: string): Promise<unknown>;
    getAll(): Promise<unknown[]>;
    getAllKeys(): Promise<string[]>;
  };
  done: Promise<void>;
}
interface RawDatabase {
  transaction(names: string | string[], mode?: 'readonly' | 'readwrite'): RawTransaction;
  createObjectStore(name: string): unknown;
  close(): void;
}
interface Idb {
  openDB(
    name: string,
    version: number,
    callbacks: { upgrade(db: RawDatabase): void },
  ): Promise<RawDatabase>;
  deleteDB(name: string): Promise<void>;
}

const idbFrom = createRequire(createRequire(import.meta.url).resolve('@minca/idb'));
const idb = idbFrom('idb') as Idb;

const id = (i: number) => i.toString(16).padStart(64, '0');
const body = (i: number) => new Uint8Array(BODY_BYTES).fill(i & 0xff);
let serial = 0;

async function rawOpen(name: string): Promise<RawDatabase> {
  return idb.openDB(name, 4, {
    upgrade(db) {
      db.createObjectStore('kv');
      db.createObjectStore('versions');
    },
  });
}

/** The adapter: 100 commits of 100 versions each, every commit one transaction. */
async function adapterPuts(): Promise<void> {
  const prefix = `bench-${serial++}`;
  const store = await indexedDBStores(prefix).open('spaces/s');
  for (let i = 0; i < COUNT; i += BATCH) {
    const versions = Array.from({ length: BATCH }, (_, j) => [id(i + j), body(i + j)] as const);
    await store.commit!({ versions, entries: [], deleteVersions: [] });
  }
  await store.close!();
  await idb.deleteDB(`${prefix}:spaces:s`);
}

/** Raw idb: the same 100 transactions of 100 puts of an ArrayBuffer copy. */
async function rawPuts(): Promise<void> {
  const name = `raw-${serial++}`;
  const db = await rawOpen(name);
  for (let i = 0; i < COUNT; i += BATCH) {
    const tx = db.transaction('versions', 'readwrite');
    const store = tx.objectStore('versions');
    const puts: Array<Promise<unknown>> = [];
    for (let j = 0; j < BATCH; j++) puts.push(store.put(body(i + j).buffer, id(i + j)));
    await Promise.all([...puts, tx.done]);
  }
  db.close();
  await idb.deleteDB(name);
}

/** Fills a store's entries once, for the cold-open reads. */
async function fillEntries(prefix: string): Promise<void> {
  const store = await indexedDBStores(prefix).open('spaces/s');
  for (let i = 0; i < COUNT; i += 1_000) {
    const writes = Array.from({ length: 1_000 }, (_, j) => ({
      key: `v/app.post/${id(i + j)}`,
      value: body(i + j),
    }));
    await store.batch(writes);
  }
  await store.close!();
}

async function adapterColdOpen(prefix: string): Promise<void> {
  const store = await indexedDBStores(prefix).open('spaces/s');
  const entries = await store.entries!('');
  if (entries.length !== COUNT) throw new Error(`read ${entries.length} entries`);
  await store.close!();
}

async function rawColdOpen(name: string): Promise<void> {
  const db = await rawOpen(name);
  const store = db.transaction('kv').objectStore('kv');
  const [keys, values] = await Promise.all([store.getAllKeys(), store.getAll()]);
  const entries = keys.map((key, i) => [key, new Uint8Array(values[i] as ArrayBuffer)]);
  if (entries.length !== COUNT) throw new Error(`read ${entries.length} entries`);
  db.close();
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * Median ms of `adapter` and of `raw`, run turn about (after one warm-up each), so drift on a
 * shared machine falls on both sides alike.
 */
async function medianPair(
  adapter: () => Promise<void>,
  raw: () => Promise<void>,
): Promise<[number, number]> {
  await adapter();
  await raw();
  const a: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    a.push(await timed(adapter));
    r.push(await timed(raw));
  }
  return [median(a), median(r)];
}

function ratio(ms: number, baseline: number): string {
  return `${(ms / baseline).toFixed(2)}× raw idb (${baseline.toFixed(0)} ms)`;
}

const bench: Benchmark = {
  name: 'idb',
  async run(): Promise<Figure[]> {
    const [putsAdapter, putsRaw] = await medianPair(adapterPuts, rawPuts);
    const prefix = 'bench-cold';
    await fillEntries(prefix);
    const [coldAdapter, coldRaw] = await medianPair(
      () => adapterColdOpen(prefix),
      () => rawColdOpen(`${prefix}:spaces:s`),
    );
    await idb.deleteDB(`${prefix}:spaces:s`);
    return [
      {
        name: `${COUNT} version puts, ${BATCH} per commit (fake-indexeddb)`,
        value: putsAdapter,
        unit: 'ms',
        note: ratio(putsAdapter, putsRaw),
      },
      {
        name: `version puts (fake-indexeddb)`,
        value: COUNT / (putsAdapter / 1000),
        unit: 'versions/s',
      },
      {
        name: `cold open + entries() of ${COUNT} (fake-indexeddb)`,
        value: coldAdapter,
        unit: 'ms',
        note: ratio(coldAdapter, coldRaw),
      },
    ];
  },
};
export default bench;
