/**
 * A fleet of hosts under load (issue 17): real `minca host` processes on 127.0.0.1 sharing one
 * S3-compatible bucket (s3rver, behind a proxy that counts the requests), and clients in a few
 * processes of their own (fleet-clients.ts), a few per space, each holding every host's address
 * and starting at a different one.
 * They write at a steady pace; midway the first host may be killed with SIGKILL and a fresh,
 * empty host started on its address. It measures that no record is lost (every one written
 * reaches every member of its space), write→arrival before and after the kill, how long the
 * killed host's clients took to be served again, throughput, and the bucket's requests.
 */
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNode } from '@minca/core';
import { memoryStores } from '@minca/memory';
import {
  type RunningS3rver,
  S3RVER_ACCESS_KEY_ID,
  S3RVER_SECRET_ACCESS_KEY,
  startS3rver,
} from '@minca/s3/testing';
import { linkTo } from '../links.js';
import { type CountingProxy, type RequestCounts, startCountingProxy } from './counting-proxy.js';
import type { FromClients, ToClients } from './fleet-clients.js';
import { type HostProcess, run, sleep, startHost, until } from './host-process.js';

/** The client processes' program, built (it runs as plain JavaScript). */
const CLIENTS_MAIN = fileURLToPath(new URL('../../dist/load/fleet-clients.js', import.meta.url));

export interface FleetLoadOptions {
  hosts: number;
  clients: number;
  spaces: number;
  seconds: number;
  /** Each client writes one record every this many ms. */
  writeEveryMs: number;
  /** When given, the first host is killed (SIGKILL) this far into the writing, and an empty one started on its address. */
  killAtSeconds?: number;
  /** How long to wait, after writing, for every record to arrive everywhere. */
  settleMs: number;
  /** Processes the clients run in (3 by default), so their work is spread over the cores. */
  clientProcesses?: number;
  log?: (line: string) => void;
}

export interface Latency {
  count: number;
  p50Ms: number;
  p99Ms: number;
}

export interface FleetLoadResult {
  hosts: number;
  clients: number;
  spaces: number;
  seconds: number;
  written: number;
  /** Arrivals of others' records at members, and how many there should be. */
  delivered: number;
  expected: number;
  /** Arrivals missing once settled: records some member of the space never got. */
  lost: number;
  /** Write→arrival of records written before the kill, and after it (all of them without one). */
  before: Latency;
  after?: Latency;
  /** Clients connected to the killed host when it died, and how long until each was served again. */
  killedClients?: number;
  servedAgain?: { p50Ms: number; maxMs: number; notServed: number };
  /** Versions written per second, and arrivals at members per second, over the writing. */
  versionsInPerSecond: number;
  fannedOutPerSecond: number;
  bucket: RequestCounts & { total: number; per1000Versions: number };
  /** CPU the hosts running at the end used from the start of the writing (a killed one's not counted). */
  hostCpuSeconds: number;
}

const BUCKET = 'minca-fleet';

export async function runFleetLoad(options: FleetLoadOptions): Promise<FleetLoadResult> {
  const log = options.log ?? (() => {});
  const root = await mkdtemp(join(tmpdir(), 'minca-fleet-load-'));
  let s3: RunningS3rver | undefined;
  let proxy: CountingProxy | undefined;
  const hosts: HostProcess[] = [];
  let groups: ClientProcess[] = [];
  const owner = await createNode({ stores: memoryStores() });
  try {
    s3 = await startS3rver({ bucket: BUCKET });
    proxy = await startCountingProxy(s3.endpoint);
    const env = {
      ...process.env,
      HOME: root,
      MINCA_S3_ENDPOINT: proxy.endpoint,
      MINCA_S3_BUCKET: BUCKET,
      MINCA_S3_ACCESS_KEY_ID: S3RVER_ACCESS_KEY_ID,
      MINCA_S3_SECRET_ACCESS_KEY: S3RVER_SECRET_ACCESS_KEY,
    };
    const key = join(root, 'fleet.key');
    await run(['host', 'fleet', 'new', key], env);
    const data = (i: number) => join(root, `host-${i}`);
    for (let i = 0; i <= options.hosts; i++)
      await run(['host', 'fleet', 'join', key, '--data', data(i)], env);
    const sub = ['host', 'subscription', 'add', owner.did, '--spaces', String(options.spaces)];
    await run([...sub, '--bytes', '100GiB', '--data', data(0)], env);
    for (let i = 0; i < options.hosts; i++) hosts.push(await startHost(root, data(i), { env }));
    const fleet = hosts[0]!.did;
    const urls = hosts.map((h) => h.url);

    const spaces: string[] = [];
    for (let s = 0; s < options.spaces; s++) {
      const { id } = await owner.spaces.create();
      await owner.spaces.allowHolder(id, fleet, 'host');
      spaces.push(id);
    }
    // The owner brings every space to the fleet through one host; the bucket records them.
    const ownerLink = linkTo(owner, urls);
    await until(
      async () => {
        for (const id of spaces) if (!(await owner.spaces.status(id)).peers[0]?.level) return false;
        return true;
      },
      120_000,
      'the fleet to hold every space',
    );
    ownerLink.close();
    const count = Math.max(1, Math.min(options.clientProcesses ?? 3, options.clients));
    const setups: Array<Array<{ index: number; space: string; invite: string }>> = Array.from(
      { length: count },
      () => [],
    );
    for (let i = 0; i < options.clients; i++) {
      const space = spaces[i % spaces.length]!;
      setups[i % count]!.push({ index: i, space, invite: await owner.spaces.invite(space) });
    }
    groups = setups.map(() => forkClients());
    await Promise.all(groups.map((g, i) => g.ask({ t: 'setup', urls, clients: setups[i]! })));
    // The hosts find each other through the bucket within a refresh.
    await sleep(6_000);
    log(`${options.clients} clients in ${count} processes connected to ${hosts.length} hosts`);

    const counted = proxy.counts();
    const cpuBefore = await cpu(hosts);
    const start = Date.now() + 500;
    const until_ = start + options.seconds * 1000;
    const write = { t: 'write', start, until: until_, everyMs: options.writeEveryMs } as const;
    const writing = Promise.all(groups.map((g) => g.ask({ ...write, total: options.clients })));
    const kill =
      options.killAtSeconds === undefined
        ? undefined
        : await killAndReplace(hosts, groups, start + options.killAtSeconds * 1000, {
            root,
            data: data(options.hosts),
            env,
            log,
          });
    const perSpace: Record<string, number> = {};
    for (const answer of await writing)
      if (answer.t === 'written')
        for (const [space, n] of Object.entries(answer.perSpace))
          perSpace[space] = (perSpace[space] ?? 0) + n;
    const seconds = (Date.now() - start) / 1000;
    log(`wrote for ${seconds.toFixed(1)} s; settling`);

    const look = async () => {
      let missing = 0;
      const all: Array<[number, number]> = [];
      for (const g of groups) {
        const a = await g.ask({ t: 'count', perSpace });
        if (a.t !== 'counts') continue;
        missing += a.missing;
        all.push(...a.latencies);
      }
      return { missing, all };
    };
    const settleBy = Date.now() + options.settleMs;
    let seen = await look();
    while (seen.missing > 0 && Date.now() < settleBy) {
      await sleep(500);
      seen = await look();
    }
    const hostCpuSeconds = cpuSince(cpuBefore, await cpu(hosts));
    const written = Object.values(perSpace).reduce((n, w) => n + w, 0);
    const membersOf = (space: string) =>
      Math.ceil((options.clients - spaces.indexOf(space)) / spaces.length);
    // Each record goes to every other member of its space.
    const expected = Object.entries(perSpace).reduce(
      (n, [space, w]) => n + w * (membersOf(space) - 1),
      0,
    );
    const killedAt = kill?.at ?? Number.POSITIVE_INFINITY;
    const requests = subtract(proxy.counts(), counted);
    const total = requests.get + requests.list + requests.put + requests.delete + requests.other;
    return {
      hosts: options.hosts,
      clients: options.clients,
      spaces: spaces.length,
      seconds,
      written,
      delivered: seen.all.length,
      expected,
      lost: seen.missing,
      before: latency(seen.all.filter(([at]) => at < killedAt)),
      ...(kill ? { after: latency(seen.all.filter(([at]) => at >= killedAt)) } : {}),
      ...(kill ? { killedClients: kill.clients, servedAgain: kill.servedAgain } : {}),
      versionsInPerSecond: written / seconds,
      fannedOutPerSecond: seen.all.length / seconds,
      bucket: { ...requests, total, per1000Versions: (total / Math.max(1, written)) * 1000 },
      hostCpuSeconds,
    };
  } finally {
    for (const g of groups) await g.stop();
    await owner.close();
    for (const h of hosts) await h.stop();
    await proxy?.close();
    await s3?.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** A process of clients (fleet-clients.ts), asked one thing at a time. */
interface ClientProcess {
  ask(message: ToClients): Promise<FromClients>;
  stop(): Promise<void>;
}

function forkClients(): ClientProcess {
  // Plain Node, whatever the runner's own flags (a test runner's resolve conditions).
  const child = fork(CLIENTS_MAIN, [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Several asks may be out at once (a kill during the writing): answers carry the ask's id.
  const waiting = new Map<number, { resolve(a: FromClients): void; reject(e: Error): void }>();
  let next = 0;
  child.on('message', (answer: FromClients & { id: number }) => {
    const ask = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (answer.t === 'error') ask?.reject(new Error(answer.message));
    else ask?.resolve(answer);
  });
  child.once('exit', () => {
    for (const ask of waiting.values()) ask.reject(new Error('a client process exited'));
    waiting.clear();
  });
  return {
    ask: (message) =>
      new Promise<FromClients>((resolve, reject) => {
        if (!child.connected) return reject(new Error('a client process exited'));
        const id = next++;
        waiting.set(id, { resolve, reject });
        child.send({ ...message, id });
      }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.send({ t: 'stop', id: -1 });
      else child.kill('SIGKILL');
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(kill);
    },
  };
}

/**
 * At `when`, kills the first host with SIGKILL and starts an empty one on its address; the
 * client processes measure, for each client the dead host served, how long until a host
 * serves it again (its link's peer shares its space: a host holds it for the client again).
 */
async function killAndReplace(
  hosts: HostProcess[],
  groups: readonly ClientProcess[],
  when: number,
  fresh: { root: string; data: string; env: NodeJS.ProcessEnv; log: (line: string) => void },
): Promise<{ at: number; clients: number; servedAgain: FleetLoadResult['servedAgain'] }> {
  await sleep(Math.max(0, when - Date.now()));
  const victim = hosts[0]!;
  const port = Number(new URL(victim.url).port);
  for (const g of groups) await g.ask({ t: 'killing', url: victim.url });
  await victim.kill();
  const at = Date.now();
  // The replacement starts while the clients move on: its start-up is not in their times.
  const replacement = startHost(fresh.root, fresh.data, {
    env: fresh.env,
    port,
    startMs: 120_000,
  });
  replacement.then(
    () => fresh.log(`the empty host listened ${Date.now() - at} ms after the kill`),
    () => undefined,
  );
  const answers = await Promise.all(groups.map((g) => g.ask({ t: 'killed', at })));
  hosts[0] = await replacement;
  let clients = 0;
  const ms: number[] = [];
  for (const a of answers)
    if (a.t === 'served') {
      clients += a.clients;
      ms.push(...a.times);
    }
  ms.sort((a, b) => a - b);
  fresh.log(`killed ${victim.url} (${clients} clients); ${ms.length} served again`);
  return {
    at,
    clients,
    servedAgain: {
      p50Ms: ms[Math.floor(ms.length / 2)] ?? Number.NaN,
      maxMs: ms[ms.length - 1] ?? Number.NaN,
      notServed: clients - ms.length,
    },
  };
}

function latency(samples: Array<[number, number]>): Latency {
  const ms = samples.map(([, m]) => m).sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? Number.NaN;
  return { count: ms.length, p50Ms: at(0.5), p99Ms: at(0.99) };
}

/** CPU seconds of each host process now, by pid (a host killed and replaced has a new pid). */
async function cpu(hosts: readonly HostProcess[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const h of hosts) out.set(h.pid, await h.cpuSeconds().catch(() => 0));
  return out;
}

/** CPU seconds the hosts running at the end used since `before` (the one killed not counted). */
function cpuSince(before: Map<number, number>, now: Map<number, number>): number {
  let sum = 0;
  for (const [pid, seconds] of now) sum += seconds - (before.get(pid) ?? 0);
  return sum;
}

function subtract(now: RequestCounts, then: RequestCounts): RequestCounts {
  return {
    get: now.get - then.get,
    list: now.list - then.list,
    put: now.put - then.put,
    delete: now.delete - then.delete,
    other: now.other - then.other,
  };
}
