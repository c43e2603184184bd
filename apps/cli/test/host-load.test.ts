// The host under load (issue #8): 200 concurrent WebSocket clients over 50 spaces, writing
// through one `minca host` process on 127.0.0.1. CI runs it for 10 s (MINCA_LOAD_SECONDS
// changes that); the benchmark `pnpm bench host` runs it for 60 s and reports the figures.
import { describe, expect, it } from 'vitest';
import { runHostLoad } from '../src/load/host-load.ts';

const SECONDS = Number(process.env.MINCA_LOAD_SECONDS ?? 10);

describe('the host under load', () => {
  it('loses no message from 200 clients in 50 spaces, with bounded memory', async () => {
    const result = await runHostLoad({
      clients: 200,
      spaces: 50,
      seconds: SECONDS,
      writeEveryMs: 1000,
      settleMs: 120_000,
    });
    console.log(JSON.stringify(result));
    expect(result.clients).toBe(200);
    // Every client wrote (a put waits for its store, so a loaded machine writes fewer).
    expect(result.written).toBeGreaterThanOrEqual(200);
    expect(result.lost).toBe(0);
    // Three other clients per space get each write.
    expect(result.expected).toBe(result.written * 3);
    expect(result.delivered).toBeGreaterThan(0);
    // Bounded: well under what a leak per message would reach; the figure is in the report.
    expect(result.hostPeakRssKiB).toBeLessThan(1024 * 1024);
  }, 600_000);
});
