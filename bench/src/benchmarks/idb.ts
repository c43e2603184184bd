// @minca/idb in a real Chromium (Debian's, through playwright-core) beside @minca/sqlite on
// better-sqlite3 in Node, and beside @minca/sqlite over SQLite's wasm build on OPFS in a
// dedicated worker of the same page, all on the same store of 100,000 versions in three
// collections (issue #19, spec 07): opening it, reading a collection's index, one record and its
// head, 10,000 bodies by id, counts, and commits of 100 and 1,000 versions. Each side also runs
// the same calls raw (raw IndexedDB in the same page, raw better-sqlite3 on the same file, raw
// wasm statements on the same connection), so the adapters' own cost shows. The page and worker
// are bundled here (rolldown) and served through Playwright's request routing: nothing listens on
// a port. Bounded: the whole run gives up after MINCA_BENCH_IDB_TIMEOUT_MS (15 minutes).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sqliteStores } from '@minca/sqlite';
import { chromiumLaunchOptions } from '@minca/test-chromium';
import Database from 'better-sqlite3';
import { chromium } from 'playwright-core';
import { rolldown } from 'rolldown';
import { fill } from '../browser-store/dataset.js';
import type { JobResult } from '../browser-store/jobs.js';
import { runJobs } from '../browser-store/jobs.js';
import type { PageResult } from '../browser-store/page.js';
import { adapterConn, rawConn, STORE_PATH } from '../browser-store/sqlite-side.js';
import type { WasmResult } from '../browser-store/wasm-worker.js';
import type { Benchmark, Figure } from '../harness.js';

const TIMEOUT_MS = Number(process.env.MINCA_BENCH_IDB_TIMEOUT_MS ?? 15 * 60_000);
const ORIGIN = 'http://localhost';
const HERE = dirname(fileURLToPath(import.meta.url));
const PAGE = join(HERE, '../browser-store/page.js');
const WORKER = join(HERE, '../browser-store/wasm-worker.js');
const WASM = createRequire(import.meta.url).resolve('@sqlite.org/sqlite-wasm/sqlite3.wasm');
const log = (line: string) => process.stderr.write(`  ${line}\n`);

/** A script and what it imports (@minca/idb, @minca/core, sqlite-wasm…), as one ES module. */
async function bundle(input: string): Promise<string> {
  const build = await rolldown({ input, platform: 'browser', logLevel: 'warn' });
  try {
    const { output } = await build.generate({ format: 'esm' });
    return output[0].code;
  } finally {
    await build.close();
  }
}

async function sqliteRun(): Promise<{ fillMs: number; jobs: JobResult[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'minca-bench-idb-'));
  try {
    const file = join(dir, 'stores.sqlite');
    const start = performance.now();
    const db = new Database(file);
    await fill(await sqliteStores(db).open(STORE_PATH));
    db.close();
    const fillMs = performance.now() - start;
    log(`SQLite store filled in ${(fillMs / 1000).toFixed(1)} s`);
    const jobs = await runJobs(
      () => adapterConn(file),
      () => rawConn(file),
      (line) => log(`SQLite: ${line}`),
    );
    return { fillMs, jobs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function browserRun(until: Promise<never>): Promise<{ idb: PageResult; wasm: WasmResult }> {
  const files: Record<string, { type: string; body: string | Buffer }> = {
    '/page.js': { type: 'text/javascript', body: await bundle(PAGE) },
    '/wasm-worker.js': { type: 'text/javascript', body: await bundle(WORKER) },
    '/sqlite3.wasm': { type: 'application/wasm', body: readFileSync(WASM) },
  };
  // A persistent context on a fresh directory: a plain launch's contexts are off the record,
  // keeping IndexedDB and OPFS in memory, which is not what a person's browser does.
  const profile = mkdtempSync(join(tmpdir(), 'minca-bench-idb-profile-'));
  const context = await chromium.launchPersistentContext(profile, chromiumLaunchOptions());
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => log(`IndexedDB: ${m.text()}`));
    await page.route(`${ORIGIN}/**`, (route) => {
      const file = files[new URL(route.request().url()).pathname];
      if (file) return route.fulfill({ contentType: file.type, body: file.body });
      return route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><meta charset="utf-8"><title>bench</title><script type="module" src="/page.js"></script>',
      });
    });
    await page.goto(`${ORIGIN}/`);
    await page.waitForFunction(() => 'mincaBench' in globalThis);
    type Page = { mincaBench: { run(): Promise<PageResult>; runWasm(): Promise<WasmResult> } };
    // Raced against the deadline here, so a run that hangs still closes the browser below.
    const idb = await Promise.race([
      page.evaluate(() => (globalThis as unknown as Page).mincaBench.run()),
      until,
    ]);
    log(`IndexedDB done; SQLite wasm on OPFS in a dedicated worker…`);
    const wasm = await Promise.race([
      page.evaluate(() => (globalThis as unknown as Page).mincaBench.runWasm()),
      until,
    ]);
    return { idb, wasm };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** A promise that rejects after `ms`, for a run that hangs, and a way to call it off. */
function deadline(ms: number): { until: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const until = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the idb benchmark took over ${ms / 1000} s`)), ms);
  });
  until.catch(() => {}); // rejected only while raced; never unhandled
  return { until, clear: () => clearTimeout(timer) };
}

const fmt = (ms: number) => (ms >= 10 ? ms.toFixed(0) : ms.toPrecision(2));
const unitOf = (job: JobResult) => (job.ops > 1 ? 'ms per record' : 'ms');

const bench: Benchmark = {
  name: 'idb',
  async run(): Promise<Figure[]> {
    const { until, clear } = deadline(TIMEOUT_MS);
    let sqlite: Awaited<ReturnType<typeof sqliteRun>>;
    let browser: Awaited<ReturnType<typeof browserRun>>;
    try {
      sqlite = await Promise.race([sqliteRun(), until]);
      browser = await browserRun(until);
    } finally {
      clear();
    }
    const { idb, wasm } = browser;
    log(`Chromium: ${idb.userAgent}; SQLite wasm ${wasm.version}, journal ${wasm.journal}`);
    const figures: Figure[] = [];
    for (const job of idb.jobs) {
      const s = sqlite.jobs.find((j) => j.job === job.job)!;
      const w = wasm.jobs.find((j) => j.job === job.job)!;
      figures.push(
        {
          name: `${job.job}: IndexedDB`,
          value: job.adapter,
          unit: unitOf(job),
          note: `${(job.adapter / s.adapter).toFixed(2)}× SQLite (${fmt(s.adapter)}); ${(job.adapter / job.raw).toFixed(2)}× raw IndexedDB (${fmt(job.raw)})`,
        },
        {
          name: `${job.job}: SQLite`,
          value: s.adapter,
          unit: unitOf(s),
          note: `${(s.adapter / s.raw).toFixed(2)}× raw better-sqlite3 (${fmt(s.raw)})`,
        },
        {
          name: `${job.job}: SQLite wasm on OPFS`,
          value: w.adapter,
          unit: unitOf(w),
          note: `${(w.adapter / job.adapter).toFixed(2)}× IndexedDB; ${(w.adapter / w.raw).toFixed(2)}× raw wasm SQLite (${fmt(w.raw)})`,
        },
      );
    }
    for (const [durability, ms] of Object.entries(idb.durability))
      figures.push({
        name: `one-put commit, durability ${durability}: raw IndexedDB`,
        value: ms,
        unit: 'ms',
        note: `${(ms / idb.durability.strict).toFixed(2)}× strict`,
      });
    const filling = 'filling 100,000 versions (commits of 5,000, then a first open)';
    figures.push(
      {
        name: `${filling}: IndexedDB`,
        value: idb.fillMs,
        unit: 'ms',
        note: `${(idb.fillMs / sqlite.fillMs).toFixed(2)}× SQLite (${fmt(sqlite.fillMs)})`,
      },
      {
        name: `${filling}: SQLite wasm on OPFS`,
        value: wasm.fillMs,
        unit: 'ms',
        note: `${(wasm.fillMs / idb.fillMs).toFixed(2)}× IndexedDB`,
      },
    );
    return figures;
  },
};
export default bench;
