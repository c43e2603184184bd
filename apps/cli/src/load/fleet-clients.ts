/**
 * One process of a fleet load's clients (fleet-load.ts forks a few, so the clients' own work
 * is spread over the machine's cores and is not what the figures measure). Driven over IPC:
 * it joins its clients to their spaces, connects them to the fleet, writes when told, and
 * reports what arrived, write→arrival times, and how long clients of a killed host took to be
 * served again.
 */
import { createNode } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { type Link, linkTo } from '../links.js';
import { sleep } from './host-process.js';
import { arrivals, COLLECTION, type LoadClient, writeUntil } from './load-records.js';

/** What the parent tells a client process. */
export type ToClients =
  | { t: 'setup'; urls: string[]; clients: Array<{ index: number; space: string; invite: string }> }
  | { t: 'write'; start: number; until: number; everyMs: number; total: number }
  | { t: 'killing'; url: string }
  | { t: 'killed'; at: number }
  | { t: 'count'; perSpace: Record<string, number> }
  | { t: 'stop' };

/** What a client process answers. */
export type FromClients =
  | { t: 'ready' }
  | { t: 'ack' }
  | { t: 'written'; perSpace: Record<string, number> }
  | { t: 'served'; clients: number; times: number[] }
  | { t: 'counts'; missing: number; latencies: Array<[number, number]> }
  | { t: 'error'; message: string };

interface Client extends LoadClient {
  link?: Link;
  latencies: Array<[at: number, ms: number]>;
  /** Versions the space held at the last look. */
  versions: number;
  taking?: Promise<void>;
  again?: boolean;
}

const clients: Client[] = [];
/** Answers carry the id of the ask they answer. */
const send = (m: FromClients, id: number) => process.send?.({ ...m, id });

/** One look at a time per client at what arrived; changes during a look get one more after it. */
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

/**
 * Counts what a client has not seen yet, with its write→arrival time. It lists only as many of
 * the newest records as the space grew by since the last look, and 64 more (a late arrival may
 * be older than some seen already; one missed here is counted at the last look, late), so
 * looking costs the client little beside the job.
 */
async function take(client: Client): Promise<void> {
  const versions = (await client.node.spaces.status(client.space)).versions;
  const grown = versions - client.versions;
  if (grown <= 0) return;
  client.versions = versions;
  client.latencies.push(...(await arrivals(client, Math.min(4096, grown + 64))));
}

async function setup(m: Extract<ToClients, { t: 'setup' }>): Promise<void> {
  for (const c of m.clients) {
    const node = await createNode({ stores: memoryStores() });
    await node.spaces.join(c.invite);
    const client: Client = { ...c, node, seen: new Set(), latencies: [], written: 0, versions: 0 };
    await node.records.subscribe(c.space, () => void takeSoon(client));
    clients.push(client);
  }
  for (const c of clients)
    c.link = linkTo(c.node, m.urls, { first: c.index % m.urls.length, maxDelayMs: 2_000 });
  const deadline = Date.now() + 180_000;
  for (const c of clients) {
    while (!(await c.node.spaces.status(c.space)).peers[0]?.synced) {
      if (Date.now() > deadline) throw new Error('a client did not connect in 180 s');
      await sleep(100);
    }
  }
}

async function write(m: Extract<ToClients, { t: 'write' }>): Promise<Record<string, number>> {
  await Promise.all(
    clients.map(async (client) => {
      await sleep(Math.max(0, m.start - Date.now()) + (client.index / m.total) * m.everyMs);
      await writeUntil(client, m.until, m.everyMs);
    }),
  );
  const perSpace: Record<string, number> = {};
  for (const c of clients) perSpace[c.space] = (perSpace[c.space] ?? 0) + c.written;
  return perSpace;
}

/** The clients connected to the host about to be killed. */
let victims: Client[] = [];

/** Clients the dead host served, and how long until a host serves each again. */
async function served(m: Extract<ToClients, { t: 'killed' }>): Promise<FromClients> {
  const watched = victims;
  const times = new Map<Client, number>();
  while (times.size < watched.length && Date.now() < m.at + 60_000) {
    for (const c of watched) {
      if (times.has(c)) continue;
      // Served: a host holds its space for it again, and takes in what it writes.
      if (c.link?.peer()?.spaces().includes(c.space)) times.set(c, Date.now() - m.at);
    }
    await sleep(50);
  }
  return { t: 'served', clients: watched.length, times: [...times.values()] };
}

async function counts(m: Extract<ToClients, { t: 'count' }>): Promise<FromClients> {
  let missing = 0;
  for (const c of clients) {
    c.versions = 0; // a full look: what arrived before a count moved is not missed
    await takeSoon(c);
    missing += (m.perSpace[c.space] ?? 0) - (await c.node.records.list(c.space, COLLECTION)).length;
  }
  return { t: 'counts', missing, latencies: clients.flatMap((c) => c.latencies) };
}

async function stop(): Promise<void> {
  for (const c of clients) {
    c.link?.close();
    await c.node.close();
  }
  process.exit(0);
}

process.on('message', (m: ToClients & { id: number }) => {
  const answer = async (): Promise<FromClients | undefined> => {
    if (m.t === 'setup') return setup(m).then(() => ({ t: 'ready' }));
    if (m.t === 'write') return { t: 'written', perSpace: await write(m) };
    if (m.t === 'killing') {
      victims = clients.filter((c) => c.link?.url === m.url && c.link.peer()?.did);
      return { t: 'ack' };
    }
    if (m.t === 'killed') return served(m);
    if (m.t === 'count') return counts(m);
    await stop();
    return undefined;
  };
  answer().then(
    (a) => a && send(a, m.id),
    (error) => send({ t: 'error', message: String((error as Error).stack ?? error) }, m.id),
  );
});
// The parent gone, nothing is left to report to.
process.on('disconnect', () => process.exit(0));
