// Spaces open while used (issue #19): a host holding 10,000 spaces of 100 records over SQLite,
// 200 clients touching 5% of them. Issue's limits: host RSS under 600 MiB, memory per idle held
// space under 50 KiB. Knobs: MINCA_BENCH_HS_SPACES (10,000), MINCA_BENCH_HS_RECORDS (100),
// MINCA_BENCH_HS_CLIENTS (200), MINCA_BENCH_HS_EVERY (20: every 20th space is touched, 5%),
// MINCA_BENCH_HS_IDLE_MS (the host's idle limit in this run, 10 s rather than the default 5 min,
// so the run need not wait), MINCA_BENCH_HS_MAX (most open at once, 1,000, the default).
// - Fill: owners (in this process, over memory) make the spaces, let the host hold them, write
//   the records (`putMany`, each version signed) and sync them to the host over memory pairs; the host is
//   a node over a SQLite file here, closed after. Each touched space gets one client as writer.
// - Serve: the host in a process of its own (host-spaces-node.ts) over that file, on a loopback
//   WebSocket. 200 client nodes (in this process, one WebSocket each) pull their spaces from it
//   (they hold nothing but their grant), write one record in each and wait until level.
// - Then the host closes what went idle: its peak RSS, the memory it keeps per idle held space
//   (heap and array buffers after GC, minus those of an empty host process measured in this run,
//   over the spaces held), and the spaces still open.
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  createMemoryTransportPair,
  createNode,
  keepConnected,
  type MincaNode,
  nodeCrypto,
} from '@minca/core';
import { memoryStores } from '@minca/memory';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { WebSocket } from 'ws';
import type { Benchmark, Figure } from '../harness.js';

const SPACES = Number(process.env.MINCA_BENCH_HS_SPACES ?? 10_000);
const RECORDS = Number(process.env.MINCA_BENCH_HS_RECORDS ?? 100);
const CLIENTS = Number(process.env.MINCA_BENCH_HS_CLIENTS ?? 200);
const EVERY = Number(process.env.MINCA_BENCH_HS_EVERY ?? 20);
const IDLE_MS = Number(process.env.MINCA_BENCH_HS_IDLE_MS ?? 10_000);
const MAX_OPEN = Number(process.env.MINCA_BENCH_HS_MAX ?? 1_000);
/** Spaces an owner makes and syncs at once during the fill. */
const BATCH = 100;
/** The limits. */
const RSS_LIMIT_MIB = 600;
const PER_SPACE_LIMIT_KIB = 50;
/** Bounds every wait: the full fill takes some minutes. */
const DEADLINE_MS = 3 * 3_600_000;
const MIB = 2 ** 20;
const script = join(dirname(fileURLToPath(import.meta.url)), '..', 'host-spaces-node.js');
const platform = nodeCrypto(crypto);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`  ${line}\n`);

interface HostStats {
  open: number;
  held: number;
  mostOpen: number;
  heap: number;
  rss: number;
  maxRss: number;
}

/** The host process: its port, and its answers to `stats` and `stop`. */
async function startHost(file: string) {
  const child = spawn(process.execPath, [script, file, String(IDLE_MS), String(MAX_OPEN)], {
    stdio: 'pipe',
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const answer = async <T>(): Promise<T> => {
    const next = await lines.next();
    if (next.done) throw new Error(`the host process ended: ${stderr}`);
    return JSON.parse(next.value) as T;
  };
  const { port } = await answer<{ port: number }>();
  return {
    port,
    stats: async () => {
      child.stdin.write('{"cmd":"stats"}\n');
      return answer<HostStats>();
    },
    stop: async () => {
      child.stdin.write('{"cmd":"stop"}\n');
      await answer();
    },
    kill: () => child.kill('SIGKILL'),
  };
}

/** Waits until `node` is level with its one peer in every space of `spaces`. */
async function level(node: MincaNode, spaces: readonly string[], end: number): Promise<void> {
  for (const id of spaces) {
    while (!(await node.spaces.status(id)).peers[0]?.level) {
      if (Date.now() > end) throw new Error(`space ${id} did not level in time`);
      await sleep(20);
    }
  }
}

/** Fills `file`: SPACES spaces of RECORDS records held by a host; the touched ones' clients join. */
async function fill(file: string, clients: MincaNode[], end: number) {
  const db = new Database(file);
  const host = await createNode({ stores: sqliteStores(db), holding: {}, crypto: platform });
  const touched = new Map<MincaNode, string[]>();
  const started = performance.now();
  let writeMs = 0;
  let syncMs = 0;
  for (let first = 0; first < SPACES; first += BATCH) {
    const batchStarted = performance.now();
    const owner = await createNode({ stores: memoryStores(), crypto: platform });
    const count = Math.min(BATCH, SPACES - first);
    const spaces = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const n = first + i;
        const { id } = await owner.spaces.create();
        await owner.spaces.allowHolder(id, host.did, 'host');
        if (n % EVERY === 0) {
          // After the holder is allowed, so the client's ticket names the host.
          const client = clients[(n / EVERY) % clients.length]!;
          await owner.spaces.setRole(id, client.did, 'writer');
          await client.spaces.join(await owner.spaces.share(id, client.did));
          touched.set(client, [...(touched.get(client) ?? []), id]);
        }
        // Each version signed on its own (no batch signature), the signing overlapped.
        const posts = Array.from({ length: RECORDS }, (_, r) => ({
          body: { s: n, r, text: `record ${r} of space ${n}` },
        }));
        await owner.records.putMany(id, 'app.post', posts);
        return id;
      }),
    );
    const written = performance.now();
    writeMs += written - batchStarted;
    const [x, y] = createMemoryTransportPair();
    const a = owner.connect(x);
    const b = host.connect(y);
    await level(owner, spaces, end);
    syncMs += performance.now() - written;
    a.close();
    b.close();
    await owner.close();
    if ((first + count) % 1000 === 0 || first + count === SPACES)
      log(
        `${first + count} of ${SPACES} spaces held (writing ${(writeMs / 1000).toFixed(0)} s, syncing ${(syncMs / 1000).toFixed(0)} s)`,
      );
  }
  const ms = performance.now() - started;
  await host.close();
  db.close();
  return { touched, ms };
}

const bench: Benchmark = {
  name: 'host-spaces',
  async run(): Promise<Figure[]> {
    const dir = await mkdtemp(join(tmpdir(), 'minca-bench-spaces-'));
    const end = Date.now() + DEADLINE_MS;
    const file = join(dir, 'host.sqlite');
    const clients: MincaNode[] = [];
    const links: Array<{ close(): void }> = [];
    let host: Awaited<ReturnType<typeof startHost>> | undefined;
    try {
      for (let c = 0; c < CLIENTS; c++)
        clients.push(await createNode({ stores: memoryStores(), crypto: platform }));
      const { touched, ms: fillMs } = await fill(file, clients, end);
      const dbMiB = (await stat(file)).size / MIB;

      // An empty host process, for the floor of what a host takes at all.
      const empty = await startHost(join(dir, 'empty.sqlite'));
      const floor = await empty.stats();
      await empty.stop();

      host = await startHost(file);
      const atStart = await host.stats();
      const started = performance.now();
      const url = `ws://127.0.0.1:${host.port}`;
      // Every client at once: pull its spaces, write one record in each, wait until level.
      await Promise.all(
        [...touched].map(async ([client, spaces]) => {
          links.push(
            keepConnected(
              () => new WebSocket(url, { maxPayload: 4 * 1024 * 1024 }) as never,
              (transport) => client.connect(transport),
            ),
          );
          await level(client, spaces, end);
          for (const id of spaces) {
            const have = (await client.records.list(id, 'app.post')).length;
            if (have !== RECORDS) throw new Error(`a client has ${have} records of ${id}`);
            await client.records.put(id, 'app.reply', { from: client.did });
          }
          await level(client, spaces, end);
        }),
      );
      const touchMs = performance.now() - started;
      const busy = await host.stats();
      // The clients stay connected; what they touched goes idle and closes.
      let idle = busy;
      while (
        idle.open > 0 &&
        Date.now() < end &&
        performance.now() - started < touchMs + 20 * IDLE_MS
      ) {
        await sleep(500);
        idle = await host.stats();
      }
      const touchedCount = [...touched.values()].reduce((n, s) => n + s.length, 0);
      const perSpaceKiB = (idle.heap - floor.heap) / SPACES / 1024;
      const shape = `${SPACES} spaces × ${RECORDS}, ${touched.size} clients touching ${touchedCount}`;
      return [
        {
          name: `host peak RSS (${shape})`,
          value: idle.maxRss / MIB,
          unit: 'MiB',
          note: `limit ${RSS_LIMIT_MIB} MiB; at start ${(atStart.rss / MIB).toFixed(0)}, all idle ${(idle.rss / MIB).toFixed(0)}, empty host ${(floor.rss / MIB).toFixed(0)}; database ${dbMiB.toFixed(0)} MiB`,
        },
        {
          name: `memory per idle held space (${shape})`,
          value: perSpaceKiB,
          unit: 'KiB',
          note: `limit ${PER_SPACE_LIMIT_KIB} KiB; heap+buffers after GC ${(idle.heap / MIB).toFixed(1)} MiB vs empty host ${(floor.heap / MIB).toFixed(1)} MiB (at start ${((atStart.heap - floor.heap) / SPACES / 1024).toFixed(1)} KiB/space); by RSS ${((idle.rss - floor.rss) / SPACES / 1024).toFixed(1)} KiB/space`,
        },
        {
          name: `spaces open at the end (${shape})`,
          value: idle.open,
          unit: 'spaces',
          note: `${busy.open} right after the touches, most at once ${idle.mostOpen} (max ${MAX_OPEN}); idle limit ${IDLE_MS / 1000} s`,
        },
        {
          name: `touch: pull, write one, level (${shape})`,
          value: touchMs / 1000,
          unit: 's',
          note: `${touched.size} clients in one process, one loopback WebSocket each`,
        },
        {
          name: `fill (${shape})`,
          value: (SPACES * RECORDS) / (fillMs / 1000),
          unit: 'versions/s',
          note: `owners writing with putMany (a signature per version), synced to the host over memory pairs; ${(fillMs / 1000).toFixed(0)} s`,
        },
      ];
    } finally {
      for (const link of links) link.close();
      for (const client of clients) await client.close();
      if (host) await host.stop().catch(() => host?.kill());
      await rm(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
