// @minca/sqlite on better-sqlite3, files on disk: 100,000 versions written through `commit` in
// batches of 100 (each with its v/<collection>/<id> entry), and a cold open of that store (a new
// connection, then readEntries(adapter, 'v/')). Each beside raw better-sqlite3 doing the same
// writes and reads (in WAL, synchronous NORMAL), in the same run, on schema 3's layout: one
// index of ids, which minca's two (schema 4) replace. And the memory a node over SQLite keeps after
// writing large records, beside the bytes it wrote.
import * as crypto from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Commit, createNode, nodeCrypto, readEntries } from '@minca/core';
import { idPrefix, SQLITE_BODY_CACHE_BYTES, SQLITE_PAGE_BYTES, sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { type Benchmark, median, medianMs } from '../harness.js';
import { heapKept } from '../heap.js';
import { writtenBytes } from '../written.js';

const VERSIONS = 100_000;
const PER_COMMIT = 100;
const BODY_BYTES = 200;
const ENTRY_BYTES = 16;
/** Runs of each side: a write run takes seconds on a busy 2-core machine. */
const WRITE_RUNS = 3;
const OPEN_RUNS = 5;
const PATH = 'spaces/bench';

const ids = Array.from({ length: VERSIONS }, (_, i) =>
  crypto.createHash('sha256').update(`version ${i}`).digest('hex'),
);
const body = new Uint8Array(BODY_BYTES).fill(7);
const entry = new Uint8Array(ENTRY_BYTES).fill(3);

function commits(): Commit[] {
  const out: Commit[] = [];
  for (let i = 0; i < VERSIONS; i += PER_COMMIT) {
    const slice = ids.slice(i, i + PER_COMMIT);
    out.push({
      versions: slice.map((id) => [id, body] as const),
      entries: slice.map((id) => ({ key: `v/app.post/${id}`, value: entry })),
      deleteVersions: [],
    });
  }
  return out;
}

function connect(file: string): Database.Database {
  const db = new Database(file);
  // Both sides in the pages minca makes a new database in (WAL mode writes the first page).
  db.pragma(`page_size = ${SQLITE_PAGE_BYTES}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

/**
 * The layout sqliteStores made in schema 3 (spec 05 §5.7), written and read with no adapter in
 * between: versions appended by rowid, with one index of their id's first 11 hex digits.
 */
const RAW_SCHEMA = [
  'CREATE TABLE entries (store INTEGER NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY (store, key)) STRICT, WITHOUT ROWID',
  'CREATE TABLE versions (n INTEGER PRIMARY KEY, store INTEGER NOT NULL, prefix INTEGER NOT NULL, id TEXT NOT NULL, body BLOB NOT NULL) STRICT',
  'CREATE INDEX versions_prefix ON versions (store, prefix)',
];

function rawWrite(file: string, work: Commit[]): void {
  const db = connect(file);
  for (const sql of RAW_SCHEMA) db.exec(sql);
  // Every version is new here: the raw side inserts, where the adapter replaces.
  const putVersion = db.prepare(
    'INSERT INTO versions (store, prefix, id, body) VALUES (1, ?, ?, ?)',
  );
  const putEntry = db.prepare('INSERT OR REPLACE INTO entries VALUES (1, ?, ?)');
  const apply = db.transaction((commit: Commit) => {
    for (const [id, bytes] of commit.versions) putVersion.run(idPrefix(id), id, bytes);
    for (const { key, value } of commit.entries) putEntry.run(key, value!);
  });
  for (const commit of work) apply(commit);
  db.close();
}

function rawOpen(file: string): number {
  const db = connect(file);
  const rows = db
    .prepare('SELECT key, value FROM entries WHERE store = 1 AND key >= ? AND key < ? ORDER BY key')
    .all('v/', 'v0') as Array<{ key: string; value: Uint8Array }>;
  db.close();
  return rows.length;
}

async function mincaWrite(file: string, work: Commit[]): Promise<number> {
  const db = connect(file);
  const stores = sqliteStores(db);
  const adapter = await stores.open(PATH);
  for (const commit of work) await adapter.commit!(commit);
  const size = await stores.size(PATH);
  db.close();
  return size;
}

async function mincaOpen(file: string): Promise<number> {
  const db = connect(file);
  const adapter = await sqliteStores(db).open(PATH);
  const entries = await readEntries(adapter, 'v/');
  db.close();
  return entries.length;
}

/** The median time of `stores.size` over a store already opened once. */
async function measureSize(file: string): Promise<number> {
  const db = connect(file);
  const stores = sqliteStores(db);
  const ms = await medianMs(OPEN_RUNS, () => stores.size(PATH));
  db.close();
  return ms;
}

function check(what: string, got: number): void {
  if (got !== VERSIONS) throw new Error(`${what} read ${got} entries, not ${VERSIONS}`);
}

/** Medians of `a`'s and `b`'s times, ms, and of the bytes each wrote (0 off Linux). */
interface Alternated {
  ms: [number, number];
  wrote: [number, number];
}

/** Times `a` and `b` alternately, `runs` times each, so load on the machine hits both alike. */
async function alternate(
  runs: number,
  a: (run: number) => unknown,
  b: (run: number) => unknown,
): Promise<Alternated> {
  const times: [number[], number[]] = [[], []];
  const wrote: [number[], number[]] = [[], []];
  for (let run = 0; run < runs; run++) {
    for (const [i, fn] of [a, b].entries()) {
      const [start, written] = [performance.now(), writtenBytes() ?? 0];
      await fn(run);
      times[i]!.push(performance.now() - start);
      wrote[i]!.push((writtenBytes() ?? 0) - written);
    }
  }
  return {
    ms: [median(times[0]), median(times[1])],
    wrote: [median(wrote[0]), median(wrote[1])],
  };
}

/** Large records, and how many: 20 MiB of bodies in all. */
const LARGE = { count: 100, bytes: 200 * 1024 };

/**
 * The heap and array buffers a node over a SQLite file keeps (after a full collection) once it
 * has put `LARGE.count` records of `LARGE.bytes`, beyond what it kept before: its body cache,
 * chiefly.
 */
async function keptAfterLargePuts(path: string): Promise<number> {
  const db = new Database(path);
  const node = await createNode({ stores: sqliteStores(db), crypto: nodeCrypto(crypto) });
  try {
    const { id: space } = await node.spaces.create();
    await node.records.put(space, 'app.doc', { text: '' });
    const before = heapKept();
    for (let i = 0; i < LARGE.count; i++)
      await node.records.put(space, 'app.doc', { text: String(i % 10).repeat(LARGE.bytes) });
    return heapKept() - before;
  } finally {
    await node.close();
    db.close();
  }
}

const bench: Benchmark = {
  name: 'sqlite',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'minca-bench-sqlite-'));
    const file = (name: string, run: number) => join(dir, `${name}-${run}.sqlite`);
    try {
      const work = commits();
      let size = 0;
      // Each write run starts from an empty file; the first files are then opened cold.
      const writes = await alternate(
        WRITE_RUNS,
        async (run) => (size = await mincaWrite(file('minca', run), work)),
        (run) => rawWrite(file('raw', run), work),
      );
      const [write, rawWriteMs] = writes.ms;
      const [open, rawOpenMs] = (
        await alternate(
          OPEN_RUNS,
          async () => check('minca', await mincaOpen(file('minca', 0))),
          () => check('raw', rawOpen(file('raw', 0))),
        )
      ).ms;
      const sizeMs = await measureSize(file('minca', 0));
      const kept = await keptAfterLargePuts(file('large', 0));
      const rate = (ms: number) => VERSIONS / (ms / 1000);
      return [
        {
          name: `commit ${VERSIONS / 1000}k versions, ${PER_COMMIT}/commit`,
          value: rate(write),
          unit: 'versions/s',
          note: `${(rate(write) / rate(rawWriteMs)).toFixed(2)}× raw better-sqlite3, one index of ids (${Math.round(rate(rawWriteMs))}/s)`,
        },
        {
          name: 'written per version, those commits',
          value: writes.wrote[0] / VERSIONS,
          unit: 'B',
          note: `to the file and its log, through write calls; raw, one index of ids: ${(writes.wrote[1] / VERSIONS).toFixed(0)} B`,
        },
        {
          name: `cold open, readEntries('v/') of ${VERSIONS / 1000}k`,
          value: open,
          unit: 'ms',
          note: `${(open / rawOpenMs).toFixed(2)}× raw better-sqlite3's time (${rawOpenMs.toFixed(0)} ms)`,
        },
        {
          name: `stores.size of ${VERSIONS / 1000}k versions + entries`,
          value: sizeMs,
          unit: 'ms',
          note: "sums the lengths of the store's rows",
        },
        {
          name: 'file size per version (+ entry)',
          value: statSync(file('minca', 0)).size / VERSIONS,
          unit: 'B',
          note: `stores.size: ${(size / VERSIONS).toFixed(0)} B of keys, values, bodies`,
        },
        {
          name: `memory kept after ${LARGE.count} puts of ${LARGE.bytes >> 10} KiB`,
          value: kept / 2 ** 20,
          unit: 'MiB',
          note: `heap + buffers after a full collection; ${((LARGE.count * LARGE.bytes) / 2 ** 20).toFixed(0)} MiB written, body cache ${SQLITE_BODY_CACHE_BYTES >> 20} MiB at most`,
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
