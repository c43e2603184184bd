/**
 * A fleet of hosts under load (issue 17): real `minca host` processes on 127.0.0.1 sharing one
 * S3-compatible bucket (s3rver, behind a proxy that counts the requests), and clients in this
 * process, a few per space, each holding every host's address and starting at a different one.
 * They write at a steady pace; midway the first host may be killed with SIGKILL and a fresh,
 * empty host started on its address. It measures that no record is lost (every one written
 * reaches every member of its space), write→arrival before and after the kill, how long the
 * killed host's clients took to be served again, throughput, and the bucket's requests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode, type MincaNode } from '@minca/core';
import { memoryStores } from '@minca/memory';
import {
  type RunningS3rver,
  S3RVER_ACCESS_KEY_ID,
  S3RVER_SECRET_ACCESS_KEY,
  startS3rver,
} from '@minca/s3/testing';
import { type Link, linkTo } from '../links.js';
import { type CountingProxy, type RequestCounts, startCountingProxy } from './counting-proxy.js';
import { type HostProcess, run, sleep, startHost, until } from './host-process.js';

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

interface Client {
  index: number;
  space: string;
  node: MincaNode;
  link?: Link;
  seen: Set<string>;
  latencies: Array<[at: number, ms: number]>;
  written: number;
  /** A look at what arrived under way, and whether another is due after it. */
  taking?: Promise<void>;
  again?: boolean;
}

const COLLECTION = 'app.msg';
const BUCKET = 'minca-fleet';
type Message = { w: number; n: number; at: number };

export async function runFleetLoad(options: FleetLoadOptions): Promise<FleetLoadResult> {
  const log = options.log ?? (() => {});
  const root = await mkdtemp(join(tmpdir(), 'minca-fleet-load-'));
  let s3: RunningS3rver | undefined;
  let proxy: CountingProxy | undefined;
  const hosts: HostProcess[] = [];
  const clients: Client[] = [];
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
    for (let i = 0; i < options.clients; i++) {
      const space = spaces[i % spaces.length]!;
      const node = await createNode({ stores: memoryStores() });
      await node.spaces.join(await owner.spaces.invite(space));
      const client: Client = { index: i, space, node, seen: new Set(), latencies: [], written: 0 };
      await node.records.subscribe(space, () => void takeSoon(client));
      clients.push(client);
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
    for (const c of clients)
      c.link = linkTo(c.node, urls, { first: c.index % urls.length, maxDelayMs: 2_000 });
    await until(
      async () => {
        for (const c of clients)
          if (!(await c.node.spaces.status(c.space)).peers[0]?.synced) return false;
        return true;
      },
      180_000,
      'every client to connect',
    );
    // The hosts find each other through the bucket within a refresh.
    await sleep(6_000);
    log(`${clients.length} clients connected to ${hosts.length} hosts`);

    const counted = proxy.counts();
    const cpuBefore = await cpu(hosts);
    const start = Date.now();
    const stopAt = start + options.seconds * 1000;
    const killer =
      options.killAtSeconds === undefined
        ? undefined
        : killAndReplace(hosts, clients, start + options.killAtSeconds * 1000, {
            root,
            data: data(options.hosts),
            env,
            log,
          });
    await Promise.all(
      clients.map(async (client) => {
        await sleep((client.index / clients.length) * options.writeEveryMs);
        while (Date.now() < stopAt) {
          const body: Message = { w: client.index, n: client.written, at: Date.now() };
          const record = await client.node.records.put(client.space, COLLECTION, body);
          client.seen.add(record.id);
          client.written++;
          await sleep(options.writeEveryMs);
        }
      }),
    );
    const seconds = (Date.now() - start) / 1000;
    log(`wrote for ${seconds.toFixed(1)} s; settling`);
    const kill = await killer;

    const perSpace = new Map<string, number>();
    for (const c of clients) perSpace.set(c.space, (perSpace.get(c.space) ?? 0) + c.written);
    const missing = async () => {
      let n = 0;
      for (const c of clients)
        n += perSpace.get(c.space)! - (await c.node.records.list(c.space, COLLECTION)).length;
      return n;
    };
    await until(async () => (await missing()) === 0, options.settleMs, 'every record').catch(
      () => undefined,
    );
    const lost = await missing();
    for (const c of clients) await take(c);
    const hostCpuSeconds = cpuSince(cpuBefore, await cpu(hosts));
    const written = clients.reduce((n, c) => n + c.written, 0);
    const all = clients.flatMap((c) => c.latencies);
    const killedAt = kill?.at ?? Number.POSITIVE_INFINITY;
    const requests = subtract(proxy.counts(), counted);
    const total = requests.get + requests.list + requests.put + requests.delete + requests.other;
    return {
      hosts: options.hosts,
      clients: clients.length,
      spaces: spaces.length,
      seconds,
      written,
      delivered: all.length,
      expected: clients.reduce((n, c) => n + perSpace.get(c.space)! - c.written, 0),
      lost,
      before: latency(all.filter(([at]) => at < killedAt)),
      ...(kill ? { after: latency(all.filter(([at]) => at >= killedAt)) } : {}),
      ...(kill ? { killedClients: kill.clients, servedAgain: kill.servedAgain } : {}),
      versionsInPerSecond: written / seconds,
      fannedOutPerSecond: all.length / seconds,
      bucket: { ...requests, total, per1000Versions: (total / Math.max(1, written)) * 1000 },
      hostCpuSeconds,
    };
  } finally {
    for (const c of clients) {
      c.link?.close();
      await c.node.close();
    }
    await owner.close();
    for (const h of hosts) await h.stop();
    await proxy?.close();
    await s3?.close();
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * At `when`, kills the first host with SIGKILL and starts an empty one on its address; then
 * measures, for each client the dead host served, how long until a host serves it again (its
 * link's peer shares its space and is synced with it).
 */
async function killAndReplace(
  hosts: HostProcess[],
  clients: readonly Client[],
  when: number,
  fresh: { root: string; data: string; env: NodeJS.ProcessEnv; log: (line: string) => void },
): Promise<{ at: number; clients: number; servedAgain: FleetLoadResult['servedAgain'] }> {
  await sleep(Math.max(0, when - Date.now()));
  const victim = hosts[0]!;
  const port = Number(new URL(victim.url).port);
  const served = clients.filter((c) => c.link?.url === victim.url && c.link.peer()?.did);
  await victim.kill();
  const at = Date.now();
  fresh.log(`killed ${victim.url} (${served.length} clients); starting an empty host there`);
  // The replacement starts while the clients move on: its start-up is not in their times.
  const replacement = startHost(fresh.root, fresh.data, { env: fresh.env, port, startMs: 120_000 });
  // Awaited below; a failure to start is reported there.
  replacement.then(
    () => fresh.log(`the empty host listened ${Date.now() - at} ms after the kill`),
    () => undefined,
  );
  const times = new Map<Client, number>();
  const deadline = at + 60_000;
  while (times.size < served.length && Date.now() < deadline) {
    for (const c of served) {
      if (times.has(c)) continue;
      const peer = c.link?.peer();
      if (peer?.spaces().includes(c.space) && peer.status(c.space)?.synced)
        times.set(c, Date.now() - at);
    }
    await sleep(50);
  }
  hosts[0] = await replacement;
  const ms = [...times.values()].sort((a, b) => a - b);
  return {
    at,
    clients: served.length,
    servedAgain: {
      p50Ms: ms[Math.floor(ms.length / 2)] ?? Number.NaN,
      maxMs: ms[ms.length - 1] ?? Number.NaN,
      notServed: served.length - ms.length,
    },
  };
}

/**
 * Looks at what arrived, one look at a time per client: changes that come during a look are
 * taken by one more look after it, so a burst costs two lists, not one per message.
 */
function takeSoon(client: Client): Promise<void> {
  if (client.taking) {
    client.again = true;
    return client.taking;
  }
  client.taking = (async () => {
    do {
      client.again = false;
      await take(client);
    } while (client.again);
  })().finally(() => {
    client.taking = undefined;
  });
  return client.taking;
}

/** Counts what a client has not seen yet, with its write→arrival time. */
async function take(client: Client): Promise<void> {
  const now = Date.now();
  const recent = await client.node.records.list<Message>(client.space, COLLECTION, {
    order: 'newest',
    limit: 256,
  });
  for (const record of recent) {
    if (client.seen.has(record.id)) continue;
    client.seen.add(record.id);
    if (record.body.w !== client.index)
      client.latencies.push([record.body.at, now - record.body.at]);
  }
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
