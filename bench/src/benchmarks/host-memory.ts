// A host holding 1,000 spaces of 1,000 records (issue #8; MINCA_BENCH_HOST_SPACES,
// MINCA_BENCH_HOST_RECORDS, MINCA_BENCH_HOST_BATCH):
// - versions/s in: a holder over SQLite takes every space in from its owners over memory pairs;
// - memory per open space: the same database opened afresh, then every held space opened: the
//   heap (and array buffers) that takes, divided by the spaces;
// - versions/s fanned out: a member who joined the first batch's spaces, with nothing of them,
//   pulls them from that full, reopened host.
// Owners write in batches of spaces, their spaces at once so signatures overlap, and close after
// the holder has their batch: the fill's memory is the holder's and one batch's.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryTransportPair, createNode, type MincaNode } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import type { Benchmark, Figure } from '../harness.js';
import { heapKept } from '../heap.js';

const SPACES = Number(process.env.MINCA_BENCH_HOST_SPACES ?? 1000);
const RECORDS = Number(process.env.MINCA_BENCH_HOST_RECORDS ?? 1000);
const BATCH = Math.min(SPACES, Number(process.env.MINCA_BENCH_HOST_BATCH ?? 50));
/** Bounds every wait: the whole fill at 1,000 × 1,000 takes some minutes. */
const DEADLINE_MS = 3_600_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`  ${line}\n`);

/** Waits until `node` is level with its one peer in every space of `spaces`. */
async function level(node: MincaNode, spaces: readonly string[], end: number): Promise<void> {
  for (const id of spaces) {
    while (!(await node.spaces.status(id)).peers[0]?.level) {
      if (Date.now() > end) throw new Error(`space ${id} did not level in time`);
      await sleep(20);
    }
  }
}

/** Connects `a` and `b` over a memory pair until they are level in `spaces`; the ms it took. */
async function syncOver(a: MincaNode, b: MincaNode, spaces: readonly string[], end: number) {
  const [x, y] = createMemoryTransportPair();
  const started = performance.now();
  const peerA = a.connect(x);
  const peerB = b.connect(y);
  await level(a, spaces, end);
  const ms = performance.now() - started;
  peerA.close();
  peerB.close();
  return ms;
}

const bench: Benchmark = {
  name: 'host-memory',
  async run(): Promise<Figure[]> {
    const dir = await mkdtemp(join(tmpdir(), 'minca-bench-host-'));
    const file = join(dir, 'host.sqlite');
    const end = Date.now() + DEADLINE_MS;
    try {
      let db = new Database(file);
      let host = await createNode({ stores: sqliteStores(db), holding: {} });
      const reader = await createNode({ stores: memoryStores() });
      let readerSpaces: string[] = [];
      let writeMs = 0;
      let takeInMs = 0;
      for (let first = 0; first < SPACES; first += BATCH) {
        const owner = await createNode({ stores: memoryStores() });
        const count = Math.min(BATCH, SPACES - first);
        const started = performance.now();
        const spaces = await Promise.all(
          Array.from({ length: count }, async (_, i) => {
            const { id } = await owner.spaces.create();
            await owner.spaces.allowHolder(id, host.did, 'host');
            if (first === 0) await reader.spaces.join(await owner.spaces.invite(id));
            for (let r = 0; r < RECORDS; r++)
              await owner.records.put(id, 'app.post', { s: first + i, r, text: `record ${r}` });
            return id;
          }),
        );
        writeMs += performance.now() - started;
        if (first === 0) readerSpaces = spaces;
        takeInMs += await syncOver(owner, host, spaces, end);
        await owner.close();
        log(`${first + count} of ${SPACES} spaces held`);
      }
      await host.close();
      db.close();
      const versions = SPACES * RECORDS;
      const dbBytes = (await stat(file)).size;

      // The same database, opened afresh: the heap of a node with no space open, then of all.
      db = new Database(file);
      host = await createNode({ stores: sqliteStores(db), holding: {} });
      const before = heapKept();
      const held = await host.spaces.held();
      const after = heapKept();
      if (held.length !== SPACES) throw new Error(`${held.length} spaces held, not ${SPACES}`);
      const rss = process.memoryUsage().rss;

      // Fan-out from the full host: the reader has nothing of its spaces but their grants.
      const outMs = await syncOver(reader, host, readerSpaces, end);
      const pulled = readerSpaces.length * RECORDS;
      for (const id of readerSpaces) {
        const { versions: have } = await reader.spaces.status(id);
        if (have < RECORDS) throw new Error(`the reader has ${have} versions of ${id}`);
      }
      await reader.close();
      await host.close();
      db.close();

      const shape = `${SPACES} × ${RECORDS} records`;
      return [
        {
          name: `memory per open space (${shape})`,
          value: (after - before) / SPACES / 1024,
          unit: 'KiB',
          note: `${((after - before) / 2 ** 20).toFixed(0)} MiB heap for all, RSS ${(rss / 2 ** 20).toFixed(0)} MiB, database ${(dbBytes / 2 ** 20).toFixed(0)} MiB`,
        },
        {
          name: `versions in (${shape})`,
          value: versions / (takeInMs / 1000),
          unit: 'versions/s',
          note: `holder over SQLite, memory pairs; owners signed ${(versions / (writeMs / 1000)).toFixed(0)}/s`,
        },
        {
          name: `versions fanned out (${shape})`,
          value: pulled / (outMs / 1000),
          unit: 'versions/s',
          note: `a member pulling ${readerSpaces.length} spaces from the full host, reopened`,
        },
      ];
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
