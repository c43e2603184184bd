// A host of a fleet taking in many spaces while another host of the fleet is connected (spec 06
// §6): each space it starts holding is named to its fleet peer soon after. An owner offers N
// spaces at once to one host (nodes over memory, in this process); the time until the host holds
// them all, at N and at 2N with the fleet peer, and at 2N without it, in the same run. Naming a
// space to the peer costing the same however many are held, the peer adds little and 2N takes
// about twice N; costing what every space held costs, the peer's share grows with N.
// Knob: MINCA_BENCH_FLEET_FILL_SPACES (N, 1,000).
import { createMemoryTransportPair, createNode, type MincaNode, SigningKey } from '@minca/core';
import { TestAccount } from '@minca/core/testing';
import { memoryStores } from '@minca/memory';
import { type Benchmark, median } from '../harness.js';

const SPACES = Number(process.env.MINCA_BENCH_FLEET_FILL_SPACES ?? 1000);
const RUNS = 3;
/** Bounds each fill. */
const DEADLINE_MS = 300_000;

function link(a: MincaNode, b: MincaNode): void {
  const [x, y] = createMemoryTransportPair();
  a.connect(x);
  b.connect(y);
}

/** Ms until a fleet host, its fleet peer connected or not, holds `count` spaces offered at once. */
async function fill(count: number, peer: boolean): Promise<number> {
  const fleet = SigningKey.generate();
  let held = 0;
  const host = async () =>
    createNode({
      stores: memoryStores(),
      ...(await new TestAccount(fleet).node({ byRoot: true })),
      // Told of each space as it starts holding it: the fill is seen to end without a listing.
      holding: {
        spaceHeld: async () => {
          held++;
        },
      },
      // All stay open: closing the least recently used past the most open (1,000 by default)
      // would cost the larger fill more for a reason of its own.
      openSpaces: { max: 2 * count },
    });
  const [a, b] = [await host(), await host()];
  const owner = await createNode({ stores: memoryStores() });
  try {
    if (peer) link(a, b);
    for (let i = 0; i < count; i++) {
      const { id } = await owner.spaces.create();
      await owner.spaces.allowHolder(id, fleet.did, 'host');
    }
    const start = performance.now();
    link(owner, a);
    while (held < count) {
      if (performance.now() - start > DEADLINE_MS) throw new Error('the fill did not end');
      await new Promise((r) => setTimeout(r, 10));
    }
    return performance.now() - start;
  } finally {
    for (const node of [owner, a, b]) await node.close();
  }
}

const bench: Benchmark = {
  name: 'fleet-fill',
  async run() {
    const once: number[] = [];
    const twice: number[] = [];
    const alone: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      once.push(await fill(SPACES, true));
      twice.push(await fill(2 * SPACES, true));
      alone.push(await fill(2 * SPACES, false));
    }
    const n = SPACES.toLocaleString('en-US');
    const n2 = (2 * SPACES).toLocaleString('en-US');
    const [a, b, c] = [median(once), median(twice), median(alone)];
    return [
      {
        name: `a fleet host takes in ${n} spaces at once`,
        value: SPACES / (a / 1000),
        unit: 'spaces/s',
        note: `${Math.round(a)} ms, its fleet peer connected`,
      },
      {
        name: `… and ${n2}`,
        value: (2 * SPACES) / (b / 1000),
        unit: 'spaces/s',
        note: `${Math.round(b)} ms: ${(b / a).toFixed(2)}× the time of ${n}; ${(b / c).toFixed(2)}× the time with no fleet peer (${Math.round(c)} ms)`,
      },
    ];
  },
};
export default bench;
