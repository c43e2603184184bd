// Initial sync of 100,000 small records between two Node processes over a loopback WebSocket,
// then a re-sync after 100 new records on each side; the same initial sync with the records
// written under batch signatures; and Yjs syncing as many records between two processes, in the
// same run. The minca processes are the integration tests' node fixture; it counts the bytes
// and frames that cross its transport, the bytes its TCP sockets carry (after the WebSocket's
// compression, spec 05 §8), and the CPU time each process spends (every thread):
// both share this machine's cores, so their sum per version bounds the rate any sync here gets.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ChildNode, type ChildStatus, untilLevel } from '@minca/integration-tests/child-node';
import { allCores } from '../ed25519-limits.js';
import { type Benchmark, type Figure, median } from '../harness.js';

// MINCA_BENCH_SYNC_RECORDS makes a quicker run; the figure of record is 100,000.
const RECORDS = Number(process.env.MINCA_BENCH_SYNC_RECORDS ?? 100_000);
// Who starts reconciling is the smaller DID: `server` (it pushes what the client lacks) or
// `client` (it pulls the collection, which it holds none of). Unset, it falls as the keys do.
const STARTER = process.env.MINCA_BENCH_SYNC_STARTER;
// Versions under one batch signature in the batch-signed run (spec 05 §3.6).
const PER_SIGNATURE = Number(process.env.MINCA_BENCH_SYNC_PER_SIGNATURE ?? 64);
// MINCA_BENCH_SYNC_ONLY=plain|lean|batch|yjs runs one part (profiling); all four otherwise.
const ONLY = process.env.MINCA_BENCH_SYNC_ONLY;
// MINCA_BENCH_SYNC_PROFILE=<dir> writes a CPU profile of each minca process there (node --cpu-prof).
const PROFILE = process.env.MINCA_BENCH_SYNC_PROFILE;
// Runs of each sync (MINCA_BENCH_SYNC_RUNS, 3 unless profiling): its figures are their medians.
// This machine's speed drifts by a third within minutes, so one run says little, and the verify
// rate each run is set against is measured just before it.
const RUNS = Number(process.env.MINCA_BENCH_SYNC_RUNS ?? (PROFILE ? 1 : 3));

/**
 * V8 flags of a joining client whose heap is held as a memory-constrained app would hold it.
 * Node's defaults on a machine of gigabytes let garbage grow to about four times what is live
 * before a full collection, and give the young generation 32 MiB: a client keeping some 25 MiB
 * live peaks near 200 MiB. Capped, the same join peaks near 120 MiB, for about a fifth more
 * CPU (collecting more often).
 */
const LEAN_HEAP = ['--max-old-space-size=128', '--max-semi-space-size=1'];

/** The limits the issue sets: of the verify rate, of the client's RSS, per record, of Yjs. */
const LIMIT = { ofVerify: 0.8, clientRssMiB: 150, bytesPerRecord: 250, ofYjs: 3 };

interface Status extends ChildStatus {
  maxRssKiB: number;
  cpuMicros: number;
  /** Bytes written through write calls since the process started (Linux only). */
  writtenBytes?: number;
  sent: number;
  received: number;
  /** What its TCP sockets carried: the frames compressed, with WebSocket framing. */
  wireSent: number;
  wireReceived: number;
  negSent: number;
}

/**
 * A fixture process with room for 100,000 versions, given up to 10 minutes an answer. The
 * joining client keeps its stores in a new SQLite file, as a device would (in memory, its
 * versions would be its RSS); the server in memory.
 */
const child = (
  role: 'serve' | 'join',
  count: number,
  order?: string,
  env = {},
  heap = ['--max-old-space-size=4096'],
) =>
  new ChildNode(role, count, {
    order,
    env: role === 'join' ? { ...env, MINCA_FIXTURE_SQLITE: newDatabase() } : env,
    nodeArgs: [
      ...heap,
      ...(PROFILE
        ? // A folder per role: worker threads write profiles of their own beside the main one.
          ['--cpu-prof', `--cpu-prof-dir=${join(PROFILE, role)}`]
        : []),
    ],
    timeoutMs: 600_000,
  });

interface MincaRun {
  ms: number;
  starter: string;
  server: Status;
  client: Status;
  /** CPU time each process spent in the initial sync, all its threads, µs. */
  cpu: { server: number; client: number };
  /** Bytes the client wrote during the initial sync, to its database and its socket. */
  clientWrote?: number;
  resync?: { ms: number; bytes: number; roundTrips: number };
}

/**
 * One initial sync of RECORDS versions, and with `resync` the re-sync after 100 new on each side;
 * the client's V8 heap flags `clientHeap`, when given.
 */
async function mincaSync(
  perSignature: number,
  resync: boolean,
  clientHeap?: string[],
): Promise<MincaRun> {
  const env = perSignature > 1 ? { MINCA_FIXTURE_PER_SIGNATURE: String(perSignature) } : {};
  const client = child('join', 0, undefined, {}, clientHeap);
  const spawned = [client];
  try {
    const { did } = await client.ask<{ did: string }>({ cmd: 'start' });
    const order =
      STARTER === 'server' ? `below:${did}` : STARTER === 'client' ? `above:${did}` : '';
    const server = child('serve', RECORDS, order, env);
    spawned.push(server);
    const { port, did: serverDid } = await server.ask<{ port: number; did: string }>({
      cmd: 'start',
    });
    const starter = serverDid < did ? 'server' : 'client';
    const { ticket } = await server.ask<{ ticket: unknown }>({ cmd: 'grant', did });
    const cpu = (node: ChildNode) =>
      node.ask<{ cpuMicros: number; writtenBytes?: number }>({ cmd: 'cpu' });
    const [s0, c0] = [await cpu(server), await cpu(client)];
    let start = performance.now();
    await client.ask({ cmd: 'join', ticket, port });
    const [s1, c1] = await untilLevel<Status>(server, client, 600_000);
    const run: MincaRun = {
      ms: performance.now() - start,
      starter,
      server: s1,
      client: c1,
      cpu: { server: s1.cpuMicros - s0.cpuMicros, client: c1.cpuMicros - c0.cpuMicros },
      ...(c1.writtenBytes !== undefined && c0.writtenBytes !== undefined
        ? { clientWrote: c1.writtenBytes - c0.writtenBytes }
        : {}),
    };
    if (resync) {
      await client.ask({ cmd: 'disconnect' });
      await server.ask({ cmd: 'write', count: 100 });
      await client.ask({ cmd: 'write', count: 100 });
      await server.ask({ cmd: 'reset' });
      await client.ask({ cmd: 'reset' });
      start = performance.now();
      await client.ask({ cmd: 'connect', port });
      const [s2, c2] = await untilLevel<Status>(server, client, 120_000);
      run.resync = {
        ms: performance.now() - start,
        bytes: s2.sent + c2.sent,
        roundTrips: Math.max(s2.negSent, c2.negSent),
      };
    }
    await client.ask({ cmd: 'stop' });
    await server.ask({ cmd: 'stop' });
    // A process writes its profile as it exits: give it time before the kill below.
    if (PROFILE) await new Promise((r) => setTimeout(r, 5000));
    return run;
  } finally {
    for (const proc of spawned) proc.kill();
  }
}

interface YjsRun {
  ms: number;
  records: number;
  sent: number;
  received: number;
  maxRssKiB: number;
}

/** Yjs: the same number of small records synced from one process to an empty doc in another. */
async function yjsSync(): Promise<YjsRun> {
  const script = fileURLToPath(new URL('../yjs-peer.js', import.meta.url));
  const line = (proc: ReturnType<typeof spawn>) =>
    new Promise<string>((resolve, reject) => {
      createInterface({ input: proc.stdout! }).once('line', resolve);
      proc.once('exit', (code) => reject(new Error(`the Yjs peer ended (${code})`)));
    });
  const server = spawn(process.execPath, [script, 'serve', String(RECORDS)], { stdio: 'pipe' });
  try {
    const { port } = JSON.parse(await line(server)) as { port: number };
    const client = spawn(process.execPath, [script, 'join', String(port)], { stdio: 'pipe' });
    try {
      const run = JSON.parse(await line(client)) as YjsRun;
      if (run.records !== RECORDS) throw new Error(`Yjs synced ${run.records} of ${RECORDS}`);
      return run;
    } finally {
      client.kill('SIGKILL');
    }
  } finally {
    server.kill('SIGKILL');
  }
}

/** Where the clients' databases go: made when the benchmark runs, removed when it ends. */
let scratch: string | undefined;
let databases = 0;
const newDatabase = () => {
  scratch ??= mkdtempSync(join(tmpdir(), 'minca-bench-sync-'));
  return join(scratch, `client-${++databases}.sqlite`);
};

const MiB = (kib: number) => kib / 1024;
const cores = availableParallelism();
const records = RECORDS.toLocaleString('en-US');

/** Runs of one sync, each with the verify rate on all cores measured just before it. */
interface Runs {
  runs: MincaRun[];
  verifyRates: number[];
}

/** {@link mincaSync} {@link RUNS} times, the verify rate on all cores measured before each. */
async function mincaSyncs(perSignature: number, resync: boolean, clientHeap?: string[]) {
  const out: Runs = { runs: [], verifyRates: [] };
  for (let i = 0; i < RUNS; i++) {
    out.verifyRates.push((await allCores('verify', 50_000)).rate);
    out.runs.push(await mincaSync(perSignature, resync, clientHeap));
  }
  return out;
}

/** The median of `values`, and their range when there are several. */
function medianOf(values: readonly number[]) {
  const range = `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
  return { value: median(values), range: values.length > 1 ? `; runs ${range}` : '' };
}

/** The figures of a minca sync, medians of its runs, named with `label`. */
function mincaFigures(label: string, { runs, verifyRates }: Runs): Figure[] {
  const rates = runs.map((run) => (RECORDS / run.ms) * 1000);
  const rate = median(rates);
  const ofVerify = medianOf(rates.map((r, i) => r / verifyRates[i]!));
  const seconds = median(runs.map((run) => run.ms / 1000));
  const cpu = {
    server: median(runs.map((run) => run.cpu.server)),
    client: median(runs.map((run) => run.cpu.client)),
  };
  const sent = median(runs.map((run) => run.server.sent + run.client.sent));
  const wire = median(runs.map((run) => run.server.wireSent + run.client.wireSent));
  const wrote = runs.every((run) => run.clientWrote !== undefined)
    ? median(runs.map((run) => run.clientWrote!))
    : undefined;
  const starters = [...new Set(runs.map((run) => run.starter))].join(' or ');
  return [
    {
      name: `${label}: initial sync, ${records} records`,
      value: rate,
      unit: 'versions/s',
      note: `${seconds.toFixed(1)} s, the ${starters} started; ${ofVerify.value.toFixed(2)}× verify on all cores (limit ≥ ${LIMIT.ofVerify}×${ofVerify.range})`,
    },
    {
      name: `${label}: bytes on the wire, both ways`,
      value: wire,
      unit: 'B',
      note: `${(wire / RECORDS).toFixed(0)} B per record (limit ≤ ${LIMIT.bytesPerRecord}); ${(sent / RECORDS).toFixed(0)} B per record in minca's frames, before compression; client→server ${median(runs.map((run) => run.client.wireSent)).toLocaleString('en-US')} B`,
    },
    {
      name: `${label}: CPU per version, both processes`,
      value: (cpu.server + cpu.client) / RECORDS,
      unit: 'µs',
      note: `server ${(cpu.server / RECORDS).toFixed(0)}, client ${(cpu.client / RECORDS).toFixed(0)} (every thread); on ${cores} cores at most ${Math.round((cores * 1e6 * RECORDS) / (cpu.server + cpu.client)).toLocaleString('en-US')} versions/s`,
    },
    ...(wrote === undefined
      ? []
      : [
          {
            name: `${label}: client's writes per version`,
            value: wrote / RECORDS,
            unit: 'B',
            note: 'to its SQLite file and log (and socket), through write calls',
          },
        ]),
    {
      name: `${label}: peak RSS, server`,
      value: median(runs.map((run) => MiB(run.server.maxRssKiB))),
      unit: 'MiB',
    },
    {
      name: `${label}: peak RSS, client`,
      value: median(runs.map((run) => MiB(run.client.maxRssKiB))),
      unit: 'MiB',
      note: `limit ≤ ${LIMIT.clientRssMiB} MiB`,
    },
  ];
}

const bench: Benchmark = {
  name: 'sync',
  async run() {
    try {
      return await runAll();
    } finally {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
      scratch = undefined;
    }
  },
};
export default bench;

async function runAll(): Promise<Figure[]> {
  // The bound of an initial sync: every version's signature checked, on all cores.
  const verify = await allCores('verify', 50_000);
  const figures: Figure[] = [
    {
      name: 'raw: verify on all cores',
      value: verify.rate,
      unit: 'signatures/s',
      note: `${verify.how}; measured again before each sync run`,
    },
  ];
  if (!ONLY || ONLY === 'plain') {
    const plain = await mincaSyncs(1, true);
    figures.push(...mincaFigures('signed each', plain));
    const resyncs = plain.runs.map((run) => run.resync!);
    figures.push(
      {
        name: 're-sync after 100 new on each side',
        value: median(resyncs.map((r) => r.ms)),
        unit: 'ms',
        note: `${median(resyncs.map((r) => r.roundTrips))} reconciliation messages from the starter`,
      },
      { name: 're-sync bytes, both ways', value: median(resyncs.map((r) => r.bytes)), unit: 'B' },
    );
  }
  if (!ONLY || ONLY === 'lean') {
    const lean = await mincaSyncs(1, false, LEAN_HEAP);
    figures.push(...mincaFigures('signed each, client heap capped', lean));
  }
  let batch: Runs | undefined;
  if (!ONLY || ONLY === 'batch') {
    batch = await mincaSyncs(PER_SIGNATURE, false);
    figures.push(...mincaFigures(`batch-signed (${PER_SIGNATURE})`, batch));
  }
  if (!ONLY || ONLY === 'yjs') {
    const yjs: YjsRun[] = [];
    for (let i = 0; i < RUNS; i++) yjs.push(await yjsSync());
    const ms = median(yjs.map((run) => run.ms));
    const bytes = median(yjs.map((run) => run.sent + run.received));
    figures.push(
      {
        name: `Yjs: initial sync, ${records} records`,
        value: (RECORDS / ms) * 1000,
        unit: 'records/s',
        note: `${(ms / 1000).toFixed(2)} s`,
      },
      {
        name: 'Yjs: bytes on the wire, both ways',
        value: bytes,
        unit: 'B',
        note: `${(bytes / RECORDS).toFixed(0)} B per record`,
      },
      {
        name: 'Yjs: peak RSS, client',
        value: median(yjs.map((run) => MiB(run.maxRssKiB))),
        unit: 'MiB',
      },
    );
    if (batch) {
      figures.push({
        name: 'batch-signed minca / Yjs, initial sync time',
        value: median(batch.runs.map((run) => run.ms)) / ms,
        unit: '×',
        note: `limit ≤ ${LIMIT.ofYjs}×`,
      });
    }
  }
  return figures;
}
