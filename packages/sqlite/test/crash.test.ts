/**
 * Crash safety: a child process commits through `writeCommit` in a loop and is killed with
 * SIGKILL at a random moment, 20 times over one database file. After each kill the file is
 * reopened: the integrity check must pass, every write the child acknowledged must be there,
 * and the one it may have had in flight must have landed whole or not at all.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { checkStoreIntegrity } from '@minca/core/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sqliteStores } from '../src/index.ts';
import { buildWriter } from './crash/build-writer.ts';
import { CRASH_STORE, checked, DELETE_LAG, idsOf, indexKey } from './crash/plan.ts';
import { TempDir } from './temp-db.ts';

const KILLS = 20;
/** Most kills land up to this long after the writer said it was ready. */
const MAX_DELAY_MS = 200;
const READY_TIMEOUT_MS = 15_000;

const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
let writer: Awaited<ReturnType<typeof buildWriter>>;
let dir: TempDir;

beforeAll(async () => {
  writer = await buildWriter();
  dir = new TempDir();
});
afterAll(() => {
  writer?.dispose();
  dir?.dispose();
});

/** Byte equality, without vitest's element-by-element deep equality on 48 KiB arrays. */
function same(actual: Uint8Array | undefined, expected: Uint8Array): boolean {
  return actual !== undefined && Buffer.from(actual).equals(expected);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the writer for `run`, kills it after a random delay, and gives the writes it acknowledged. */
async function runAndKill(run: number, file: string, early: boolean): Promise<number> {
  const child: ChildProcess = spawn(
    process.execPath,
    [writer.path, driverPath, file, String(run)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    if (!early) {
      const started = Date.now();
      while (!out.startsWith('ready\n') && child.exitCode === null) {
        if (Date.now() - started > READY_TIMEOUT_MS) throw new Error('the writer never got ready');
        await sleep(5);
      }
    }
    await sleep(Math.random() * (early ? 80 : MAX_DELAY_MS));
  } finally {
    child.kill('SIGKILL');
  }
  const code = await closed;
  // A writer that exited by itself failed: it only stops when killed.
  if (code !== null) throw new Error(`the writer exited with ${code}: ${err}`);
  // Every line the writer finished before the kill is still in the pipe, and read by now.
  const acks = out.split('\n').filter((line) => line.startsWith('ack '));
  expect(acks, 'acks come in order').toEqual(acks.map((_, i) => `ack ${i}`));
  return acks.length;
}

/** What run `run` left once `landed` of its commits landed: the ids still there, and those gone. */
function stateOf(run: number, landed: number): { present: string[]; gone: string[] } {
  const present: string[] = [];
  const gone: string[] = [];
  for (let n = 0; n <= landed; n++) {
    (n < landed && n >= landed - DELETE_LAG ? present : gone).push(...idsOf(run, n));
  }
  return { present, gone };
}

it(`loses no acknowledged write and tears nothing across ${KILLS} SIGKILLs`, async () => {
  const file = dir.file();
  const landedByRun: number[] = [];
  let acked = 0;
  for (let run = 0; run < KILLS; run++) {
    // Every fifth kill, the first among them, may land while the writer starts and makes the schema.
    const acks = await runAndKill(run, file, run % 5 === 0);
    acked += acks;
    const db = new Database(file);
    try {
      const stores = sqliteStores(db);
      const adapter = await stores.open(CRASH_STORE);
      const report = await checkStoreIntegrity(adapter);
      expect(report.problems, `after kill ${run}`).toEqual([]);
      // The commit after the last ack may have landed before the kill: whole, or not at all.
      const inFlight = idsOf(run, acks);
      const there = await Promise.all(inFlight.map((id) => adapter.getVersion(id)));
      const landed = there[0] === undefined ? acks : acks + 1;
      landedByRun.push(landed);
      const expected: string[] = [];
      for (const [r, count] of landedByRun.entries()) {
        const { present, gone } = stateOf(r, count);
        for (const id of present) {
          const body = await adapter.getVersion(id);
          expect(same(body, checked(`body:${id}`)), `run ${r}: version ${id}`).toBe(true);
          const entry = await adapter.get(indexKey(id));
          expect(same(entry, checked(`entry:${id}`)), `run ${r}: entry of ${id}`).toBe(true);
        }
        for (const id of gone)
          expect(await adapter.getVersion(id), `run ${r}: ${id}`).toBe(undefined);
        expected.push(...present.map(indexKey));
      }
      expect(await adapter.list('v/notes/')).toEqual(expected.sort());
      let last = landedByRun.length - 1;
      while (last >= 0 && landedByRun[last] === 0) last--;
      const meta = await adapter.get('meta/last');
      if (last < 0) expect(meta).toBe(undefined);
      else
        expect(same(meta, checked(`last:${last}:${landedByRun[last]! - 1}`)), 'meta/last').toBe(
          true,
        );
    } finally {
      db.close();
    }
  }
  // The kills must have landed mid-writing, not only before the first commit.
  expect(acked).toBeGreaterThan(KILLS);
}, 150_000);
