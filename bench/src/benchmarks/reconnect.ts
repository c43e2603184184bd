// A device with many spaces meeting its host again (spec 06 §4.1): an owner whose N spaces a
// host holds reconnects, and the connection names, proves and says hello in every one until it
// stands level with the host in each. Both nodes are in this process, over memory, and keep at
// most 1,000 spaces open (the default), so at 500 every space stays open and at 2,000 half of
// them must close for the others to open; the time and CPU until level, at both, in the same
// run. Opening each space as often at 2,000 as at 500, the CPU a space is about the same; opening
// one again for each step of the meeting, several times as much. Then the same meetings with
// every space changed on the owner while apart (a record more in each), so each needs a session:
// at 2,000 no more sessions may run at once than their spaces can stay open, or each is cut as
// its space closes for the next, and starts again.
// Knob: MINCA_BENCH_RECONNECT_SPACES (the larger N, 2,000; the smaller is a quarter of it).
import * as crypto from 'node:crypto';
import { createNode, nodeCrypto, SigningKey } from '@minca/core';
import { TestAccount } from '@minca/core/testing';
import { memoryStores } from '@minca/memory';
import { type Benchmark, median } from '../harness.js';
import { cpuMsSince, levelIn, link, until } from '../meeting.js';

const LARGE = Number(process.env.MINCA_BENCH_RECONNECT_SPACES ?? 2000);
const SMALL = Math.round(LARGE / 4);
const RUNS = 3;

interface Meeting {
  ms: number;
  cpuMs: number;
}

/**
 * Reconnects of an owner with `count` spaces on its host, ms and CPU ms until level in all:
 * `level`, nothing changed while apart; `changed`, every space changed while apart.
 */
async function reconnects(count: number): Promise<{ level: Meeting[]; changed: Meeting[] }> {
  const fleet = SigningKey.generate();
  let held = 0;
  const host = await createNode({
    stores: memoryStores(),
    ...(await new TestAccount(fleet).node({ byRoot: true })),
    holding: {
      spaceHeld: async () => {
        held++;
      },
    },
  });
  const owner = await createNode({ stores: memoryStores(), crypto: nodeCrypto(crypto) });
  const ids: string[] = [];
  const out = { level: [] as Meeting[], changed: [] as Meeting[] };
  try {
    for (let i = 0; i < count; i++) {
      const { id } = await owner.spaces.create();
      await owner.records.put(id, 'app.note', { text: `space ${i}` });
      await owner.spaces.allowHolder(id, fleet.did, 'host');
      ids.push(id);
    }
    let peer = link(owner, host);
    await until(() => held === count && levelIn(peer, ids), 'the first fill');
    for (const kind of ['level', 'changed'] as const) {
      for (let run = 0; run < RUNS; run++) {
        peer.close();
        // The host's end hears of the close before the owner connects again.
        await new Promise((r) => setTimeout(r, 100));
        if (kind === 'changed')
          for (const id of ids) await owner.records.put(id, 'app.note', { run });
        const cpu = process.cpuUsage();
        const start = performance.now();
        peer = link(owner, host);
        await until(() => levelIn(peer, ids), 'the reconnect');
        out[kind].push({ ms: performance.now() - start, cpuMs: cpuMsSince(cpu) });
      }
    }
    return out;
  } finally {
    await owner.close();
    await host.close();
  }
}

const bench: Benchmark = {
  name: 'reconnect',
  async run() {
    const small = await reconnects(SMALL);
    const large = await reconnects(LARGE);
    const ms = (runs: Meeting[]) => median(runs.map((r) => r.ms));
    const cpu = (runs: Meeting[]) => median(runs.map((r) => r.cpuMs));
    const n = (x: number) => x.toLocaleString('en-US');
    // CPU a space, µs: the wall time also holds the connection's timers (its reoffer window).
    const figures = (kind: 'level' | 'changed', what: string) => {
      const [a, b] = [(1000 * cpu(small[kind])) / SMALL, (1000 * cpu(large[kind])) / LARGE];
      return [
        {
          name: `an owner with ${n(SMALL)} spaces meets its host again, ${what}: level in all`,
          value: ms(small[kind]),
          unit: 'ms',
          note: `CPU ${Math.round(cpu(small[kind]))} ms, both nodes: ${a.toFixed(0)} µs a space`,
        },
        {
          name: `… with ${n(LARGE)} spaces (at most 1,000 open)`,
          value: ms(large[kind]),
          unit: 'ms',
          note: `CPU ${Math.round(cpu(large[kind]))} ms: ${b.toFixed(0)} µs a space, ${(b / a).toFixed(2)}× a space's at ${n(SMALL)}`,
        },
      ];
    };
    return [...figures('level', 'nothing changed'), ...figures('changed', 'every space changed')];
  },
};
export default bench;
