// A fleet of hosts (issue 17): `minca host` processes on 127.0.0.1 over one s3rver bucket (behind
// a proxy that counts its requests), clients in this process holding every host's address.
//
// 1. The fault run: three hosts, 300 clients in 60 spaces writing a record every 2 s each for
//    2 minutes; at 1 minute the first host is killed with SIGKILL and an empty one started on its
//    address. Records lost (must be 0), write→arrival p50/p99 before and after the kill, and how
//    long the killed host's clients took to be served again.
// 2. The same job on one host and on three, with the clients writing as fast as every 250 ms:
//    versions/s in and fanned out, and bucket requests per 1,000 versions. On a machine of two
//    cores the hosts and the clients share them, so three hosts cannot go faster than one here;
//    the figure says what a fleet costs and how it holds under the same offered load.
//
// Smaller with MINCA_BENCH_FLEET_CLIENTS, MINCA_BENCH_FLEET_SECONDS (the fault run) and
// MINCA_BENCH_FLEET_RATE_SECONDS (each throughput run; 60 by default).
import { type FleetLoadResult, runFleetLoad } from '@minca/cli/fleet-load';
import type { Benchmark, Figure } from '../harness.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CLIENTS = env('MINCA_BENCH_FLEET_CLIENTS', 300);
const SECONDS = env('MINCA_BENCH_FLEET_SECONDS', 120);
const RATE_SECONDS = env('MINCA_BENCH_FLEET_RATE_SECONDS', 60);
const log = (line: string) => process.stderr.write(`  ${line}\n`);

const bench: Benchmark = {
  name: 'fleet',
  async run() {
    const spaces = Math.max(1, Math.round(CLIENTS / 5));
    const fault = await runFleetLoad({
      hosts: 3,
      clients: CLIENTS,
      spaces,
      seconds: SECONDS,
      writeEveryMs: 2_000,
      killAtSeconds: SECONDS / 2,
      settleMs: 180_000,
      log,
    });
    log(JSON.stringify(fault));
    const job = `${CLIENTS} clients, ${spaces} spaces`;
    const figures: Figure[] = [
      {
        name: 'records lost, a host killed midway',
        value: fault.lost,
        unit: 'arrivals',
        note: `of ${fault.expected} (${fault.written} written, ${job}, ${fault.seconds.toFixed(0)} s)`,
      },
      { name: 'write → arrival p50, before the kill', value: fault.before.p50Ms, unit: 'ms' },
      { name: 'write → arrival p99, before the kill', value: fault.before.p99Ms, unit: 'ms' },
      { name: 'write → arrival p50, after the kill', value: fault.after!.p50Ms, unit: 'ms' },
      { name: 'write → arrival p99, after the kill', value: fault.after!.p99Ms, unit: 'ms' },
      {
        name: "killed host's clients served again, p50",
        value: fault.servedAgain!.p50Ms,
        unit: 'ms',
        note: `${fault.killedClients} clients; ${fault.servedAgain!.notServed} not served in 60 s`,
      },
      {
        name: "killed host's clients served again, max",
        value: fault.servedAgain!.maxMs,
        unit: 'ms',
      },
    ];
    const runs: Record<number, FleetLoadResult> = {};
    for (const hosts of [1, 3]) {
      runs[hosts] = await runFleetLoad({
        hosts,
        clients: CLIENTS,
        spaces,
        seconds: RATE_SECONDS,
        writeEveryMs: 250,
        settleMs: 180_000,
        log,
      });
      log(JSON.stringify(runs[hosts]));
    }
    for (const hosts of [1, 3]) {
      const r = runs[hosts]!;
      const note = `${hosts} host(s), ${job}, each writing every 250 ms; lost ${r.lost}`;
      figures.push(
        { name: `versions in, ${hosts} host(s)`, value: r.versionsInPerSecond, unit: '/s', note },
        { name: `versions fanned out, ${hosts} host(s)`, value: r.fannedOutPerSecond, unit: '/s' },
        { name: `write → arrival p99, ${hosts} host(s)`, value: r.before.p99Ms, unit: 'ms' },
        {
          name: `bucket requests per 1,000 versions, ${hosts} host(s)`,
          value: r.bucket.per1000Versions,
          unit: 'requests',
          note: `${r.bucket.put} PUT, ${r.bucket.get} GET, ${r.bucket.list} LIST, ${r.bucket.delete} DELETE`,
        },
        { name: `hosts' CPU, ${hosts} host(s)`, value: r.hostCpuSeconds, unit: 's' },
      );
    }
    const ratio = runs[3]!.versionsInPerSecond / runs[1]!.versionsInPerSecond;
    figures.push({ name: 'versions in, three hosts ÷ one', value: ratio, unit: '×' });
    return figures;
  },
};
export default bench;
