// Opening a space's store of many versions, and what it keeps in memory once open (issue #19;
// MINCA_BENCH_OPEN_VERSIONS, 1,000,000 by default; MINCA_BENCH_OPEN_ROUNDS, 3). The store is
// @minca/sqlite over a file holding the index entries of COUNT versions, one record each, in
// the layout every minca wrote before sets were stored as pages (`v/<collection>/<id>`): making
// and signing a million versions would take minutes, and opening reads no body.
// - first open: what opening that database takes the first time (a store that keeps its sets
//   as pages moves the entries under their records and writes the pages then);
// - open: the median of ROUNDS opens after it, each in a fresh database connection;
// - heap kept: the heap and array buffers an open store holds (after a full collection), per
//   version.
// The limit beside them, in the same run: reading every index entry's bytes from the database
// (the raw read an open over the whole index cannot beat).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SigningKey, Store } from '@minca/core';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { type Benchmark, type Figure, median } from '../harness.js';
import { heapKept } from '../heap.js';
import { fillIndex } from '../index-fill.js';

const COUNT = Number(process.env.MINCA_BENCH_OPEN_VERSIONS ?? 1_000_000);
const ROUNDS = Number(process.env.MINCA_BENCH_OPEN_ROUNDS ?? 3);
const COLLECTION = 'app.log';
const PATH = 'spaces/open';
const log = (line: string) => process.stderr.write(`  ${line}\n`);

/** Opens the store in a fresh connection: ms taken, heap kept while open. */
async function open(file: string): Promise<{ ms: number; kept: number; versions: number }> {
  const db = new Database(file);
  try {
    const before = heapKept();
    const started = performance.now();
    const store = await Store.open(await sqliteStores(db).open(PATH));
    const ms = performance.now() - started;
    const kept = heapKept() - before;
    const versions = store.versionCount();
    await store.close();
    return { ms, kept, versions };
  } finally {
    db.close();
  }
}

const bench: Benchmark = {
  name: 'store-open',
  async run(): Promise<Figure[]> {
    const dir = mkdtempSync(join(tmpdir(), 'minca-bench-open-'));
    try {
      const file = join(dir, 'open.sqlite');
      const author = SigningKey.generate().did;
      await fillIndex(file, {
        path: PATH,
        count: COUNT,
        seed: 'open',
        author: author,
        key: (_record, id) => `v/${COLLECTION}/${id}`,
      });
      const first = await open(file);
      if (first.versions !== COUNT) throw new Error(`${first.versions} versions, not ${COUNT}`);
      log(`first open of ${COUNT} versions: ${first.ms.toFixed(0)} ms`);
      const opens: number[] = [];
      const kept: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const o = await open(file);
        opens.push(o.ms);
        kept.push(o.kept);
      }
      // The raw limit: every index entry's bytes, read in one query, in a fresh connection.
      const raws: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const db = new Database(file);
        const started = performance.now();
        const rows = db
          .prepare("SELECT key, value FROM minca_entries WHERE key >= 'v/' AND key < 'v0'")
          .all();
        raws.push(performance.now() - started);
        db.close();
        if (rows.length < COUNT) throw new Error(`${rows.length} index entries read`);
      }
      const shape = `${COUNT.toLocaleString('en-US')} versions`;
      const raw = median(raws);
      return [
        {
          name: `first open (${shape})`,
          value: first.ms,
          unit: 'ms',
          note: `${(first.ms / raw).toFixed(2)}× reading every index entry (${raw.toFixed(0)} ms)`,
        },
        {
          name: `open (${shape})`,
          value: median(opens),
          unit: 'ms',
          note: `${(median(opens) / raw).toFixed(2)}× reading every index entry`,
        },
        {
          name: `heap kept while open (${shape})`,
          value: median(kept) / COUNT,
          unit: 'B/version',
          note: `${(median(kept) / 2 ** 20).toFixed(1)} MiB in all`,
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
