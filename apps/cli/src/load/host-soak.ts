/**
 * The host soaked (issue 15): a real `minca host` process on 127.0.0.1, many clients through it
 * for minutes, a share of them hostile (random frames, `spaces` floods, silent sockets; see
 * hostile-clients.ts). The honest clients are nodes in this process that keep reconnecting as
 * a real client does (`linkTo`), a few per space, each writing at a steady pace. It measures
 * that no honest record is lost, the host's resident memory over the run (peak, and how it
 * moved after warming up), its CPU time, and write→arrival at the other clients.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { type Link, linkTo } from '../links.js';
import { sleep, startHost, until } from './host-process.js';
import { type HostileStats, startHostile } from './hostile-clients.js';
import { arrivals, COLLECTION, type LoadClient, writeUntil } from './load-records.js';
import { bringToHost, makeSpaces, subscribeOwner } from './owner-spaces.js';

export interface HostSoakOptions {
  /** Every client, the hostile ones among them. */
  clients: number;
  /** The share of clients that are hostile, such as 0.05. */
  hostileShare: number;
  spaces: number;
  seconds: number;
  /** Each honest client writes one record every this many ms. */
  writeEveryMs: number;
  /** How long to wait, after writing, for every record to arrive everywhere. */
  settleMs: number;
  /** Spaces and access proofs in each flood message. */
  floodNames?: number;
  floodProofs?: number;
  log?: (line: string) => void;
}

export interface HostSoakResult {
  honest: number;
  hostile: number;
  seconds: number;
  written: number;
  delivered: number;
  expected: number;
  /** Records some honest client of the space never got. */
  lost: number;
  p50Ms: number;
  p99Ms: number;
  hostPeakRssKiB: number;
  /** Resident memory once every client was connected, and at the end of the writing. */
  hostRssAfterConnectKiB: number;
  hostRssAtEndKiB: number;
  hostCpuSeconds: number;
  /** Times an honest client's connection ended (it reconnects), and the reasons given. */
  honestDisconnects: number;
  honestDisconnectReasons: Record<string, number>;
  hostileStats: HostileStats[];
}

interface Honest extends LoadClient {
  link?: Link;
  latencies: number[];
  disconnects: number;
  reasons: Map<string, number>;
}

export async function runHostSoak(options: HostSoakOptions): Promise<HostSoakResult> {
  const log = options.log ?? (() => {});
  const hostileCount = Math.round(options.clients * options.hostileShare);
  const honestCount = options.clients - hostileCount;
  const root = await mkdtemp(join(tmpdir(), 'minca-host-soak-'));
  const data = join(root, 'host-data');
  const owner = await createNode({ stores: memoryStores() });
  await subscribeOwner(owner, root, data, options.spaces);
  const host = await startHost(root, data);
  const honest: Honest[] = [];
  let hostile: ReturnType<typeof startHostile> = [];
  try {
    const spaces = await makeSpaces(owner, host.did, options.spaces);
    for (let i = 0; i < honestCount; i++) {
      const space = spaces[i % spaces.length]!;
      const node = await createNode({ stores: memoryStores() });
      await node.spaces.join(await owner.spaces.invite(space));
      const client: Honest = {
        index: i,
        space,
        node,
        seen: new Set(),
        latencies: [],
        written: 0,
        disconnects: 0,
        reasons: new Map(),
      };
      await node.records.subscribe(space, () => void take(client));
      honest.push(client);
    }
    await bringToHost(owner, spaces, host.url);
    for (const client of honest) {
      client.link = linkTo(client.node, host.url, { maxDelayMs: 2_000 });
      watchDisconnects(client);
    }
    await until(
      async () => {
        for (const c of honest)
          if (!(await c.node.spaces.status(c.space)).peers[0]?.synced) return false;
        return true;
      },
      180_000,
      'every honest client to connect',
    );
    const rssAfterConnect = await host.rssKiB();
    log(`${honest.length} honest clients connected; ${hostileCount} hostile start`);
    hostile = startHostile(hostileCount, host.url, {
      floodNames: options.floodNames ?? 10_000,
      floodProofs: options.floodProofs ?? 1_000,
      silentSockets: 4,
    });

    const cpuBefore = await host.cpuSeconds();
    const start = Date.now();
    const stopAt = start + options.seconds * 1000;
    let peakSeen = 0;
    const sampling = setInterval(() => {
      void host.rssKiB().then((kib) => {
        peakSeen = Math.max(peakSeen, kib);
      });
    }, 5_000);
    await Promise.all(
      honest.map(async (client) => {
        await sleep((client.index / honest.length) * options.writeEveryMs);
        await writeUntil(client, stopAt, options.writeEveryMs);
      }),
    );
    clearInterval(sampling);
    const seconds = (Date.now() - start) / 1000;
    const rssAtEnd = await host.rssKiB();
    log(`wrote for ${seconds.toFixed(1)} s; settling`);

    const perSpace = new Map<string, number>();
    for (const c of honest) perSpace.set(c.space, (perSpace.get(c.space) ?? 0) + c.written);
    const missing = async () => {
      let n = 0;
      for (const c of honest) {
        const all = await c.node.records.list(c.space, COLLECTION);
        n += perSpace.get(c.space)! - all.length;
      }
      return n;
    };
    await until(async () => (await missing()) === 0, options.settleMs, 'every record').catch(
      () => undefined,
    );
    const hostCpuSeconds = (await host.cpuSeconds()) - cpuBefore;
    const lost = await missing();
    for (const c of honest) await take(c);
    const written = honest.reduce((n, c) => n + c.written, 0);
    const latencies = honest.flatMap((c) => c.latencies).sort((a, b) => a - b);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
    return {
      honest: honest.length,
      hostile: hostileCount,
      seconds,
      written,
      delivered: latencies.length,
      expected: honest.reduce((n, c) => n + perSpace.get(c.space)! - c.written, 0),
      lost,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      hostPeakRssKiB: Math.max(await host.peakRssKiB(), peakSeen),
      hostRssAfterConnectKiB: rssAfterConnect,
      hostRssAtEndKiB: rssAtEnd,
      hostCpuSeconds,
      honestDisconnects: honest.reduce((n, c) => n + c.disconnects, 0),
      honestDisconnectReasons: countReasons(honest),
      hostileStats: summarize(hostile.map((h) => h.stats)),
    };
  } finally {
    for (const h of hostile) h.stop();
    for (const c of honest) {
      c.link?.close();
      await c.node.close();
    }
    await owner.close();
    await host.stop();
    await rm(root, { recursive: true, force: true });
  }
}

/** Counts what every honest client of a space has not seen yet, with its write→arrival time. */
async function take(client: Honest): Promise<void> {
  for (const [, ms] of await arrivals(client, 256)) client.latencies.push(ms);
}

/** Counts each time the client's connection ended and the link made a new one. */
function watchDisconnects(client: Honest): void {
  const seen = new WeakSet<object>();
  let peers = 0;
  const timer = setInterval(() => {
    if (!client.link) return clearInterval(timer);
    const peer = client.link.peer();
    if (peer === undefined || seen.has(peer)) return;
    seen.add(peer);
    if (++peers > 1) {
      client.disconnects++;
      const why = (client.link.lastError() ?? 'unknown').slice(0, 80);
      client.reasons.set(why, (client.reasons.get(why) ?? 0) + 1);
    }
  }, 250);
  timer.unref();
}

function countReasons(clients: readonly Honest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of clients) for (const [why, n] of c.reasons) out[why] = (out[why] ?? 0) + n;
  return out;
}

function summarize(stats: HostileStats[]): HostileStats[] {
  const byKind = new Map<string, HostileStats>();
  for (const s of stats) {
    const sum = byKind.get(s.kind) ?? { kind: s.kind, connections: 0, cutOff: 0, framesSent: 0 };
    sum.connections += s.connections;
    sum.cutOff += s.cutOff;
    sum.framesSent += s.framesSent;
    byKind.set(s.kind, sum);
  }
  return [...byKind.values()];
}
