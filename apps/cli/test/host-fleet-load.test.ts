// A fleet under load (issue 17): three `minca host` processes over one s3rver bucket on
// 127.0.0.1, 60 clients in 12 spaces writing for 30 s; midway the first host is killed with
// SIGKILL and an empty one started on its address. No record is lost, and the killed host's
// clients are served again. The full size (300 clients, 60 spaces, 2 minutes) is the benchmark
// `pnpm bench fleet`; MINCA_FLEET_SECONDS and MINCA_FLEET_CLIENTS change this one.
import { describe, expect, it } from 'vitest';
import { runFleetLoad } from '../src/load/fleet-load.ts';

const SECONDS = Number(process.env.MINCA_FLEET_SECONDS ?? 30);
const CLIENTS = Number(process.env.MINCA_FLEET_CLIENTS ?? 60);

describe('a fleet of three hosts under load', () => {
  it('loses nothing when a host is killed midway, and serves its clients again', async () => {
    const result = await runFleetLoad({
      hosts: 3,
      clients: CLIENTS,
      spaces: CLIENTS / 5,
      seconds: SECONDS,
      writeEveryMs: 2_000,
      killAtSeconds: SECONDS / 2,
      settleMs: 120_000,
    });
    console.log(JSON.stringify(result));
    expect(result.clients).toBe(CLIENTS);
    expect(result.written).toBeGreaterThanOrEqual(CLIENTS);
    // Four other members per space get each write, every one of them.
    expect(result.expected).toBe(result.written * 4);
    expect(result.lost).toBe(0);
    expect(result.delivered).toBe(result.expected);
    // Writes went on after the kill, and reached the members too.
    expect(result.after!.count).toBeGreaterThan(0);
    // A third of the clients started on the killed host; each was served again.
    expect(result.killedClients).toBeGreaterThan(0);
    expect(result.servedAgain!.notServed).toBe(0);
    expect(result.bucket.put).toBeGreaterThan(0);
  }, 600_000);
});
