// @minca/idb in a real Chromium (Debian's, through playwright-core) beside @minca/sqlite on
// better-sqlite3 in Node, on the same store of 100,000 versions in three collections (issue #19,
// spec 07): opening it, reading a collection's index, one record and its head, 10,000 bodies by
// id, counts, and commits of 100 and 1,000 versions. Each side also runs the same calls raw (raw
// IndexedDB in the same page, raw better-sqlite3 on the same file), so the adapters' own cost
// shows. The page is bundled here (rolldown) and served through Playwright's request routing:
// nothing listens on a port. Bounded: the whole run gives up after MINCA_BENCH_IDB_TIMEOUT_MS.
import { mkdtempSync, rmSync } from 'node:fs';
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
import type { Benchmark, Figure } from '../harness.js';

const TIMEOUT_MS = Number(process.env.MINCA_BENCH_IDB_TIMEOUT_MS ?? 15 * 60_000);
const ORIGIN = 'http://localhost';
const PAGE = join(dirname(fileURLToPath(import.meta.url)), '../browser-store/page.js');
const log = (line: string) => process.stderr.write(`  ${line}\n`);

/** The page's script: page.js with @minca/idb, @minca/core and idb, as one ES module. */
async function bundle(): Promise<string> {
  const build = await rolldown({ input: PAGE, platform: 'browser', logLevel: 'warn' });
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

async function browserRun(): Promise<PageResult> {
  const script = await bundle();
  const browser = await chromium.launch(chromiumLaunchOptions());
  try {
    const page = await browser.newPage();
    page.on('console', (m) => log(`IndexedDB: ${m.text()}`));
    await page.route(`${ORIGIN}/**`, (route) => {
      const { pathname } = new URL(route.request().url());
      if (pathname === '/page.js')
        return route.fulfill({ contentType: 'text/javascript', body: script });
      return route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><meta charset="utf-8"><title>bench</title><script type="module" src="/page.js"></script>',
      });
    });
    await page.goto(`${ORIGIN}/`);
    await page.waitForFunction(() => 'mincaBench' in globalThis);
    return await page.evaluate(() =>
      (globalThis as unknown as { mincaBench: { run(): Promise<PageResult> } }).mincaBench.run(),
    );
  } finally {
    await browser.close();
  }
}

/** Rejects after `ms`, for a run that hangs; the timer never holds the process open. */
function deadline(ms: number): Promise<never> {
  return new Promise((_, reject) => {
    setTimeout(() => reject(new Error(`the idb benchmark took over ${ms / 1000} s`)), ms).unref();
  });
}

const fmt = (ms: number) => (ms >= 10 ? ms.toFixed(0) : ms.toPrecision(2));
const unitOf = (job: JobResult) => (job.ops > 1 ? 'ms per record' : 'ms');

const bench: Benchmark = {
  name: 'idb',
  async run(): Promise<Figure[]> {
    const work = (async () => {
      const sqlite = await sqliteRun();
      const idb = await browserRun();
      return { sqlite, idb };
    })();
    const { sqlite, idb } = await Promise.race([work, deadline(TIMEOUT_MS)]);
    log(
      `Chromium: ${idb.userAgent}; IndexedDB store filled in ${(idb.fillMs / 1000).toFixed(1)} s`,
    );
    const figures: Figure[] = [];
    for (const job of idb.jobs) {
      const s = sqlite.jobs.find((j) => j.job === job.job)!;
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
      );
    }
    figures.push({
      name: 'filling 100,000 versions (commits of 5,000, then a first open): IndexedDB',
      value: idb.fillMs,
      unit: 'ms',
      note: `${(idb.fillMs / sqlite.fillMs).toFixed(2)}× SQLite (${fmt(sqlite.fillMs)})`,
    });
    return figures;
  },
};
export default bench;
