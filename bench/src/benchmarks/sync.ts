// Initial sync of 100,000 small records between two Node processes over a loopback WebSocket,
// then a re-sync after 100 new records on each side. The processes are the integration tests'
// node fixture; it counts the bytes and frames that cross its transport.
import { ChildNode, type ChildStatus, untilLevel } from '@minca/integration-tests/child-node';
import { allCores } from '../ed25519-limits.js';
import type { Benchmark } from '../harness.js';

// MINCA_BENCH_SYNC_RECORDS makes a quicker run; the figure of record is 100,000.
const RECORDS = Number(process.env.MINCA_BENCH_SYNC_RECORDS ?? 100_000);
// Who starts reconciling is the smaller DID: `server` (it pushes what the client lacks) or
// `client` (it asks for it, 256 ids a want). Unset, it falls as the keys do.
const STARTER = process.env.MINCA_BENCH_SYNC_STARTER;

interface Status extends ChildStatus {
  maxRssKiB: number;
  sent: number;
  received: number;
  negSent: number;
}

// MINCA_BENCH_SYNC_PROFILE=<dir> writes a CPU profile of each process there (node --cpu-prof).
const PROFILE = process.env.MINCA_BENCH_SYNC_PROFILE;

/** A fixture process with room for 100,000 versions, given up to 10 minutes an answer. */
const child = (role: 'serve' | 'join', count: number, order?: string) =>
  new ChildNode(role, count, {
    order,
    nodeArgs: [
      '--max-old-space-size=4096',
      ...(PROFILE
        ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`, `--cpu-prof-name=${role}.cpuprofile`]
        : []),
    ],
    timeoutMs: 600_000,
  });

const bench: Benchmark = {
  name: 'sync',
  async run() {
    // The bound of an initial sync: every version's signature checked, on all cores.
    const verify = await allCores('verify', 50_000);
    const client = child('join', 0);
    const spawned = [client];
    try {
      const { did } = await client.ask<{ did: string }>({ cmd: 'start' });
      const order =
        STARTER === 'server' ? `below:${did}` : STARTER === 'client' ? `above:${did}` : '';
      const server = child('serve', RECORDS, order);
      spawned.push(server);
      const { port, did: serverDid } = await server.ask<{ port: number; did: string }>({
        cmd: 'start',
      });
      const starter = serverDid < did ? 'server' : 'client';
      const { ticket } = await server.ask<{ ticket: unknown }>({ cmd: 'grant', did });
      let start = performance.now();
      await client.ask({ cmd: 'join', ticket, port });
      const [s1, c1] = await untilLevel<Status>(server, client, 600_000);
      const initialMs = performance.now() - start;

      await client.ask({ cmd: 'disconnect' });
      await server.ask({ cmd: 'write', count: 100 });
      await client.ask({ cmd: 'write', count: 100 });
      await server.ask({ cmd: 'reset' });
      await client.ask({ cmd: 'reset' });
      start = performance.now();
      await client.ask({ cmd: 'connect', port });
      const [s2, c2] = await untilLevel<Status>(server, client, 120_000);
      const resyncMs = performance.now() - start;
      const roundTrips = Math.max(s2.negSent, c2.negSent);
      await client.ask({ cmd: 'stop' });
      await server.ask({ cmd: 'stop' });
      const rate = (RECORDS / initialMs) * 1000;
      return [
        {
          name: 'raw: verify on all cores',
          value: verify.rate,
          unit: 'signatures/s',
          note: verify.how,
        },
        {
          name: `initial sync, ${RECORDS.toLocaleString('en-US')} records`,
          value: rate,
          unit: 'versions/s',
          note: `${(initialMs / 1000).toFixed(1)} s, the ${starter} started; ${(rate / verify.rate).toFixed(2)}× verify on all cores`,
        },
        {
          name: 'initial sync, bytes server→client',
          value: s1.sent,
          unit: 'B',
          note: `${(s1.sent / RECORDS).toFixed(0)} B per version`,
        },
        { name: 'initial sync, bytes client→server', value: c1.sent, unit: 'B' },
        { name: 'peak RSS, server', value: s1.maxRssKiB / 1024, unit: 'MiB' },
        { name: 'peak RSS, client', value: c1.maxRssKiB / 1024, unit: 'MiB' },
        {
          name: 're-sync after 100 new on each side',
          value: resyncMs,
          unit: 'ms',
          note: `${roundTrips} reconciliation messages from the starter`,
        },
        { name: 're-sync bytes, both ways', value: s2.sent + c2.sent, unit: 'B' },
      ];
    } finally {
      for (const proc of spawned) proc.kill();
    }
  },
};
export default bench;
