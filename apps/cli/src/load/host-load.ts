/**
 * The host under load: a real `minca host` process (the built CLI) on 127.0.0.1, and many
 * WebSocket clients in this process, each a node of its own, a few per space, writing for a
 * while. It measures what the issue asks: that no message is lost, the host's peak RSS, and the
 * time from a write to its arrival at another client. The load test runs it short; the `host`
 * benchmark runs it for 60 s.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode } from '@minca/core';
import { memoryStores } from '@minca/memory';
import type { WebSocket } from 'ws';
import { connect, sleep, startHost, until } from './host-process.js';
import { arrivals, COLLECTION, type LoadClient, type Message, writeUntil } from './load-records.js';
import { bringToHost, makeSpaces, subscribeOwner } from './owner-spaces.js';

export interface HostLoadOptions {
  clients: number;
  spaces: number;
  /** How long every client writes. */
  seconds: number;
  /** Each client writes one record every this many ms. */
  writeEveryMs: number;
  /** How long to wait, after writing, for every record to arrive everywhere. */
  settleMs?: number;
  log?: (line: string) => void;
}

export interface HostLoadResult {
  clients: number;
  spaces: number;
  seconds: number;
  written: number;
  /** Arrivals at clients other than the writer, and how many there should be. */
  delivered: number;
  expected: number;
  /** Records some client of the space never got. */
  lost: number;
  versionsInPerSecond: number;
  versionsOutPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  hostPeakRssKiB: number;
}

interface Client extends LoadClient {
  socket: WebSocket;
  latencies: number[];
}

export async function runHostLoad(options: HostLoadOptions): Promise<HostLoadResult> {
  const log = options.log ?? (() => {});
  const root = await mkdtemp(join(tmpdir(), 'minca-host-load-'));
  const data = join(root, 'host-data');
  const owner = await createNode({ stores: memoryStores() });
  await subscribeOwner(owner, root, data, options.spaces);
  const host = await startHost(root, data);
  const clients: Client[] = [];
  try {
    // The owner makes the spaces, lets the host hold them and brings them to it.
    const spaces = await makeSpaces(owner, host.did, options.spaces);
    const take = async (client: Client) => {
      for (const [, ms] of await arrivals(client, 256)) client.latencies.push(ms);
    };
    // Clients, spread over the spaces, invited by the owner; then the owner brings everything to
    // the host and leaves, and the clients meet only the host.
    for (let i = 0; i < options.clients; i++) {
      const space = spaces[i % spaces.length]!;
      const node = await createNode({ stores: memoryStores() });
      // Invite only: the invite carries the holders the owner allows, so the client names the
      // space to the host; each client learns the others' roles from their acceptances.
      await node.spaces.join(await owner.spaces.invite(space));
      const client: Client = {
        index: i,
        space,
        node,
        socket: undefined as never,
        seen: new Set(),
        latencies: [],
        written: 0,
      };
      await node.records.subscribe(space, () => void take(client));
      clients.push(client);
    }
    await bringToHost(owner, spaces, host.url);
    log(`host holds ${spaces.length} spaces`);
    for (const client of clients) client.socket = connect(client.node, host.url);
    let notLevel = clients.length;
    await until(
      async () => {
        notLevel = 0;
        for (const c of clients) {
          if (!(await c.node.spaces.status(c.space)).peers[0]?.synced) notLevel++;
        }
        return notLevel === 0;
      },
      120_000,
      'every client to connect',
    ).catch(async (error: Error) => {
      const s = await clients[0]!.node.spaces.status(clients[0]!.space);
      throw new Error(
        `${error.message}: ${notLevel} of ${clients.length} not level with the host (${JSON.stringify(s)})`,
      );
    });
    log(`${clients.length} clients connected`);

    // Everyone writes for `seconds`, staggered so writes spread over each interval.
    const start = Date.now();
    const stopAt = start + options.seconds * 1000;
    await Promise.all(
      clients.map(async (client) => {
        await sleep((client.index / clients.length) * options.writeEveryMs);
        await writeUntil(client, stopAt, options.writeEveryMs);
      }),
    );
    const seconds = (Date.now() - start) / 1000;
    log(`wrote for ${seconds.toFixed(1)} s`);

    // Every record reaches every client of its space: counted from the stores, not the events.
    const perSpace = new Map<string, number>();
    for (const c of clients) perSpace.set(c.space, (perSpace.get(c.space) ?? 0) + c.written);
    const complete = async () => {
      for (const c of clients) {
        const all = await c.node.records.list<Message>(c.space, COLLECTION);
        if (all.length < perSpace.get(c.space)!) return false;
      }
      return true;
    };
    await until(complete, options.settleMs ?? 60_000, 'every record to arrive').catch(() => {});
    let lost = 0;
    for (const c of clients) {
      const all = await c.node.records.list<Message>(c.space, COLLECTION);
      lost += perSpace.get(c.space)! - all.length;
      for (const r of all) c.seen.add(r.id);
    }
    const written = clients.reduce((n, c) => n + c.written, 0);
    const latencies = clients.flatMap((c) => c.latencies).sort((a, b) => a - b);
    const expected = clients.reduce((n, c) => n + perSpace.get(c.space)! - c.written, 0);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
    return {
      clients: clients.length,
      spaces: spaces.length,
      seconds,
      written,
      delivered: latencies.length,
      expected,
      lost,
      versionsInPerSecond: written / seconds,
      versionsOutPerSecond: latencies.length / seconds,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      hostPeakRssKiB: await host.peakRssKiB(),
    };
  } finally {
    for (const c of clients) {
      c.socket?.close();
      await c.node.close();
    }
    await owner.close();
    await host.stop();
    await rm(root, { recursive: true, force: true });
  }
}
