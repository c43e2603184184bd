// The host (issue #8). Two parts:
// 1. Throughput and latency: a real `minca host` process on 127.0.0.1 with 200 WebSocket
//    clients over 50 spaces writing for 60 s (MINCA_BENCH_HOST_SECONDS): versions/s in,
//    versions/s fanned out, p50/p99 write→arrival, the host's peak RSS, and whether any message
//    was lost. The clients run in this process, so their own event loop is in the latency.
// 2. Memory per open space: a holder node over SQLite holding 1,000 spaces of 1,000 records
//    (MINCA_BENCH_HOST_SPACES, MINCA_BENCH_HOST_RECORDS), opened afresh; the heap it takes,
//    divided by the spaces, beside the same node with no space open.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { runHostLoad } from '@minca/cli/host-load';
import { createMemoryTransportPair, createNode, type MincaNode } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import type { Benchmark, Figure } from '../harness.js';

const SECONDS = Number(process.env.MINCA_BENCH_HOST_SECONDS ?? 60);
const SPACES = Number(process.env.MINCA_BENCH_HOST_SPACES ?? 1000);
const RECORDS = Number(process.env.MINCA_BENCH_HOST_RECORDS ?? 1000);

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function level(owner: MincaNode, spaces: string[]): Promise<void> {
  const end = Date.now() + 3_600_000;
  for (const id of spaces) {
    while (!(await owner.spaces.status(id)).peers[0]?.level) {
      if (Date.now() > end) throw new Error('the holder did not take every space in');
      await sleep(20);
    }
  }
}

async function memoryPerSpace(): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), 'minca-bench-host-'));
  const file = join(dir, 'host.sqlite');
  try {
    // Fill: an owner writes every space, and a holder over SQLite takes them in over a pair.
    let db = new Database(file);
    let holder = await createNode({ stores: sqliteStores(db), holding: {} });
    const owner = await createNode({ stores: memoryStores() });
    const spaces: string[] = [];
    for (let s = 0; s < SPACES; s++) {
      const { id } = await owner.spaces.create();
      await owner.spaces.allowHolder(id, holder.did, 'host');
      for (let r = 0; r < RECORDS; r++)
        await owner.records.put(id, 'app.post', { s, r, text: `record ${r}` });
      spaces.push(id);
    }
    const [a, b] = createMemoryTransportPair();
    const started = performance.now();
    owner.connect(a);
    holder.connect(b);
    await level(owner, spaces);
    const takeInPerSecond = (SPACES * RECORDS) / ((performance.now() - started) / 1000);
    await owner.close();
    await holder.close();
    db.close();

    // Measure: the same database, opened afresh; then every held space opened.
    db = new Database(file);
    holder = await createNode({ stores: sqliteStores(db), holding: {} });
    const before = heap();
    const held = await holder.spaces.held();
    const after = heap();
    if (held.length !== SPACES) throw new Error(`${held.length} spaces held, not ${SPACES}`);
    await holder.close();
    db.close();
    const per = (after - before) / SPACES;
    return [
      {
        name: `memory per open space (${SPACES} × ${RECORDS} records)`,
        value: per / 1024,
        unit: 'KiB',
        note: `${((after - before) / 2 ** 20).toFixed(1)} MiB heap for all`,
      },
      { name: 'holder take-in over a memory pair', value: takeInPerSecond, unit: 'versions/s' },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const bench: Benchmark = {
  name: 'host',
  async run() {
    const load = await runHostLoad({
      clients: 200,
      spaces: 50,
      seconds: SECONDS,
      writeEveryMs: 1000,
      settleMs: 120_000,
      log: (line) => process.stderr.write(`  ${line}\n`),
    });
    const note = `200 clients, 50 spaces, ${load.seconds.toFixed(0)} s`;
    return [
      { name: 'versions in', value: load.versionsInPerSecond, unit: 'versions/s', note },
      {
        name: 'versions fanned out',
        value: load.versionsOutPerSecond,
        unit: 'versions/s',
        note: `${load.delivered} of ${load.expected} arrivals seen`,
      },
      { name: 'write → arrival p50', value: load.p50Ms, unit: 'ms', note },
      { name: 'write → arrival p99', value: load.p99Ms, unit: 'ms', note },
      {
        name: 'messages lost',
        value: load.lost,
        unit: 'records',
        note: `of ${load.written} written`,
      },
      { name: 'host peak RSS', value: load.hostPeakRssKiB / 1024, unit: 'MiB', note },
      ...(await memoryPerSpace()),
    ];
  },
};
export default bench;
