// The host under load (issue #8): a real `minca host` process on 127.0.0.1 with 200 WebSocket
// clients over 50 spaces writing for 60 s (MINCA_BENCH_HOST_SECONDS): versions/s in, versions/s
// fanned out, p50/p99 write→arrival, the host's peak RSS, and whether any message was lost. The
// clients run in this process, so their own event loop is in the latency. host-memory.ts
// measures a host holding 1,000 spaces of 1,000 records.
import { runHostLoad } from '@minca/cli/host-load';
import type { Benchmark } from '../harness.js';

const SECONDS = Number(process.env.MINCA_BENCH_HOST_SECONDS ?? 60);

const bench: Benchmark = {
  name: 'host-load',
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
    ];
  },
};
export default bench;
