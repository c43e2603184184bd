// The host soaked (issue 15): a real `minca host` on 127.0.0.1 with 500 clients for 10 minutes,
// 5% of them hostile (random frames, `spaces` floods, silent sockets), the rest writing a
// record every 2 s each: honest arrivals missing (must be 0), the host's peak RSS and how its RSS
// moved after warming up, its CPU time, and p50/p99 write→arrival. The clients run in this
// process, so their own event loop is in the latency. Shorter or smaller with
// MINCA_BENCH_SOAK_SECONDS and MINCA_BENCH_SOAK_CLIENTS; flood size with
// MINCA_BENCH_SOAK_FLOOD_NAMES and MINCA_BENCH_SOAK_FLOOD_PROOFS; MINCA_BENCH_SOAK_HOSTILE=0 for
// the same run with no hostile client, to compare against.
import { runHostSoak } from '@minca/cli/host-soak';
import type { Benchmark } from '../harness.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = env('MINCA_BENCH_SOAK_SECONDS', 600);
const CLIENTS = env('MINCA_BENCH_SOAK_CLIENTS', 500);

const bench: Benchmark = {
  name: 'host-soak',
  async run() {
    const spaces = Math.max(1, Math.round(CLIENTS / 5));
    const soak = await runHostSoak({
      clients: CLIENTS,
      hostileShare: env('MINCA_BENCH_SOAK_HOSTILE', 0.05),
      spaces,
      seconds: SECONDS,
      writeEveryMs: 2_000,
      settleMs: 180_000,
      floodNames: env('MINCA_BENCH_SOAK_FLOOD_NAMES', 10_000),
      floodProofs: env('MINCA_BENCH_SOAK_FLOOD_PROOFS', 1_000),
      log: (line) => process.stderr.write(`  ${line}\n`),
    });
    process.stderr.write(`  ${JSON.stringify(soak)}\n`);
    const note = `${soak.honest} honest + ${soak.hostile} hostile clients, ${spaces} spaces, ${soak.seconds.toFixed(0)} s`;
    const mib = (kib: number) => kib / 1024;
    return [
      {
        name: 'honest arrivals missing',
        value: soak.lost,
        unit: 'arrivals',
        note: `of ${soak.expected} (${soak.written} records written)`,
      },
      { name: 'write → arrival p50', value: soak.p50Ms, unit: 'ms', note },
      { name: 'write → arrival p99', value: soak.p99Ms, unit: 'ms', note },
      { name: 'host peak RSS', value: mib(soak.hostPeakRssKiB), unit: 'MiB', note },
      {
        name: 'host RSS, end of writing',
        value: mib(soak.hostRssAtEndKiB),
        unit: 'MiB',
        note: `${mib(soak.hostRssAfterConnectKiB).toFixed(0)} MiB once all had connected`,
      },
      {
        name: 'host CPU',
        value: soak.hostCpuSeconds,
        unit: 's',
        note: `over ${soak.seconds.toFixed(0)} s and the settling`,
      },
      {
        name: 'honest reconnections',
        value: soak.honestDisconnects,
        unit: 'times',
        note: soak.hostileStats
          .map((h) => `${h.kind}: ${h.cutOff} cut off of ${h.connections}`)
          .join('; '),
      },
    ];
  },
};
export default bench;
