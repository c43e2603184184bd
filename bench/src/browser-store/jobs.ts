// The jobs of the IndexedDB/SQLite benchmark, as the calls a Store makes on its adapter, run the
// same way on each side over a connection: the adapter's, or raw calls of the same platform
// doing the same reads and writes. Timed where they run (in the page for IndexedDB), so no
// round trip to the page is counted.
import { type Commit, decodeStrict, type StorageAdapter } from '@minca/core';
import { idPrefix } from '@minca/sqlite';
import {
  bodyOf,
  COLLECTIONS,
  idFrom,
  indexKey,
  type MadeVersion,
  random,
  VERSIONS,
  versions,
} from './dataset.js';

/**
 * The raw side's statements on `minca_versions` (spec 05 §5.7): a version is found by its id's
 * first 11 hex digits as an integer (`idPrefix`) among the recent and the settled ids, then its
 * whole id; a put deletes a row of that id found among the recent ids, then inserts the row and
 * its recent id. (The raw side never moves recent ids: its writes are too few.)
 */
export const RAW_VERSIONS = {
  get: `SELECT body FROM minca_versions WHERE n IN (
    SELECT n FROM minca_recent_ids WHERE store = ? AND prefix = ?
    UNION ALL SELECT n FROM minca_version_ids WHERE store = ? AND prefix = ?) AND id = ?`,
  delete: `DELETE FROM minca_versions
    WHERE n IN (SELECT n FROM minca_recent_ids WHERE store = ? AND prefix = ?) AND id = ?`,
  insert: 'INSERT INTO minca_versions (store, prefix, id, body) VALUES (?, ?, ?, ?)',
  addRecent: 'INSERT INTO minca_recent_ids (store, prefix, n) VALUES (?, ?, last_insert_rowid())',
} as const;

/** The parameters of {@link RAW_VERSIONS}' `get` for version `id` of `store`. */
export function rawVersionKey(store: number, id: string): [number, number, number, number, string] {
  const prefix = idPrefix(id);
  return [store, prefix, store, prefix, id];
}

/** What each side answers: the adapter's methods the store calls, or raw calls doing the same. */
export interface Conn {
  get(key: string): Promise<Uint8Array | undefined>;
  entries(prefix: string): Promise<Array<[string, Uint8Array]>>;
  count(prefix: string): Promise<number>;
  getVersions(ids: readonly string[]): Promise<Array<Uint8Array | undefined>>;
  commit(commit: Commit): Promise<void>;
  close(): Promise<void>;
}

/** A side's connection through its minca adapter; `close` ends what the side opened for it. */
export function connThrough(adapter: StorageAdapter, close: () => Promise<void>): Conn {
  return {
    get: (key) => adapter.get(key),
    entries: (prefix) => adapter.entries!(prefix),
    count: (prefix) => adapter.count!(prefix),
    getVersions: (ids) => adapter.getVersions!(ids),
    commit: (commit) => adapter.commit!(commit),
    close,
  };
}

/** One job's medians, ms: through the adapter and raw. */
export interface JobResult {
  job: string;
  adapter: number;
  raw: number;
  /** Operations in one timed run (the figure is per operation when more than one). */
  ops: number;
}

/** Records read one by one in the `record` job. */
const RECORD_READS = 300;
// Writes get more runs: a commit that fills the WAL past its limit checkpoints it, so their
// times vary more.
const RUNS = { open: 7, read: 7, count: 9, write: 15 };

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

function expect(what: string, got: number, want: number): void {
  if (got !== want) throw new Error(`${what}: got ${got}, not ${want}`);
}

/** A record's heads from its index entries: the ids no other entry of it supersedes. */
function headsOf(entries: Array<[string, Uint8Array]>): string[] {
  const superseded = new Set<string>();
  for (const [, value] of entries) {
    const meta = decodeStrict(value, { maxBytes: 16 * 1024, maxDepth: 2 }) as { p: Uint8Array[] };
    for (const p of meta.p) superseded.add(hex(p));
  }
  return entries
    .map(([key]) => key.slice(key.lastIndexOf('/') + 1))
    .filter((id) => !superseded.has(id));
}

/** New versions for a write job, each with its index entry, and a summary-sized entry. */
function writeOf(next: () => number, n: number): Commit {
  const made = Array.from({ length: n }, (_, i) => ({
    collection: 'app.bench',
    record: `w${next()}x${i}`,
    id: idFrom(next),
  }));
  return {
    versions: made.map((v) => [v.id, bodyOf(next)] as const),
    entries: [
      ...made.map((v) => ({ key: indexKey(v), value: bodyOf(next).subarray(0, 60) })),
      { key: 'w/summary', value: bodyOf(next).subarray(0, 200) },
    ],
    deleteVersions: [],
  };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Medians of `work` on both sides, run turn about after a warm-up each. */
async function pair<T>(
  job: string,
  runs: number,
  ops: number,
  sides: readonly [T, T],
  work: (side: T) => Promise<unknown>,
): Promise<JobResult> {
  const times: [number[], number[]] = [[], []];
  for (let run = -1; run < runs; run++) {
    for (const i of [0, 1] as const) {
      const ms = await timed(() => work(sides[i]));
      if (run >= 0) times[i].push(ms / ops);
    }
  }
  return { job, adapter: median(times[0]), raw: median(times[1]), ops };
}

/**
 * Runs every job over a store {@link fill} made, through `adapter` and `raw` connections turn
 * about: new ones for each open, then one of each (or the two `shared` gives) for the rest.
 * Writes come last: they add keys the counts would see.
 */
export async function runJobs(
  adapter: () => Promise<Conn>,
  raw: () => Promise<Conn>,
  log: (line: string) => void = () => {},
  shared: () => Promise<[Conn, Conn]> = async () => [await adapter(), await raw()],
): Promise<JobResult[]> {
  const all: MadeVersion[] = [...versions()];
  const likes = all.filter((v) => v.collection === 'app.like').map((v) => v.id);
  const pick = random(7);
  const posts = COLLECTIONS[0].records;
  const asked = Array.from({ length: RECORD_READS }, () => `post${pick() % posts}`);
  const out: JobResult[] = [];

  out.push(
    await pair('open', RUNS.open, 1, [adapter, raw], async (open) => {
      const conn = await open();
      if ((await conn.get('n')) === undefined) throw new Error('the store has no summary');
      const pages = await conn.entries('n/');
      if (pages.length === 0) throw new Error('the store has no pages');
      expect('versions counted at open', await conn.count('v/'), VERSIONS);
      await conn.close();
    }),
  );
  log('open done');
  const conns = await shared();
  try {
    out.push(
      await pair('records of 10,000', RUNS.read, 1, conns, async (c) =>
        expect('app.like entries', (await c.entries('v/app.like/')).length, 10_000),
      ),
    );
    out.push(
      await pair('records of 60,000', RUNS.read, 1, conns, async (c) =>
        expect('app.post entries', (await c.entries('v/app.post/')).length, 60_000),
      ),
    );
    log('records done');
    out.push(
      await pair('record by id, with its heads', RUNS.read, RECORD_READS, conns, async (c) => {
        for (const record of asked) {
          const heads = headsOf(await c.entries(`v/app.post/${record}/`));
          expect(`heads of ${record}`, heads.length, 1);
          const [body] = await c.getVersions(heads);
          if (body === undefined) throw new Error(`no body for the head of ${record}`);
        }
      }),
    );
    out.push(
      await pair('10,000 bodies by id', RUNS.read, 1, conns, async (c) => {
        const bodies = await c.getVersions(likes);
        expect('bodies read', bodies.filter((b) => b !== undefined).length, likes.length);
      }),
    );
    log('reads done');
    out.push(
      await pair('count of 100,000', RUNS.count, 1, conns, async (c) =>
        expect('count', await c.count('v/'), VERSIONS),
      ),
    );
    out.push(
      await pair('count of 10,000', RUNS.count, 1, conns, async (c) =>
        expect('count', await c.count('v/app.like/'), 10_000),
      ),
    );
    for (const n of [100, 1_000]) {
      // Made before the timing: each run writes versions no run wrote before.
      const next = random(n);
      const queue = Array.from({ length: 2 * (RUNS.write + 1) }, () => writeOf(next, n));
      out.push(
        await pair(`write ${n.toLocaleString('en-US')} versions`, RUNS.write, 1, conns, (c) =>
          c.commit(queue.pop()!),
        ),
      );
    }
    log('writes done');
  } finally {
    for (const c of conns) await c.close();
  }
  return out;
}
