// What one more write costs a set of 1,000,000 items kept in blocks (`NegentropySet`, the blocks
// a store keeps per collection), beside the same set built in one go:
// - grown: the way a node's own puts grow it, a few items after its last at a time with a
//   snapshot after each (as a sync session takes one), 20,000 writes of 50;
// - built: every item inserted, then one snapshot (a store opened, a peer's versions taken in).
// The figure is the median CPU of one write of one item after the last, then a snapshot.
import { randomBytes } from 'node:crypto';
import { NegentropySet } from '@minca/core/negentropy';
import { type Benchmark, median } from '../harness.js';

const ITEMS = Number(process.env.MINCA_BENCH_SET_ITEMS ?? 1_000_000);
/** Items per write while growing: fewer than a tail block holds. */
const PER_WRITE = 50;
const WRITES = 2000;

/** Random ids for the items, made when the benchmark runs (every benchmark file is loaded). */
let ids: Uint8Array | undefined;
const idAt = (i: number) => {
  ids ??= randomBytes(32 * (ITEMS + WRITES));
  return ids.subarray(32 * i, 32 * i + 32);
};

function grown(): NegentropySet {
  const set = new NegentropySet();
  for (let i = 0; i < ITEMS; ) {
    for (const end = Math.min(ITEMS, i + PER_WRITE); i < end; i++) set.insert(i + 1, idAt(i));
    set.snapshot();
  }
  return set;
}

function built(): NegentropySet {
  const set = new NegentropySet();
  for (let i = 0; i < ITEMS; i++) set.insert(i + 1, idAt(i));
  set.snapshot();
  return set;
}

/** Median µs of CPU for one item after the last, then a snapshot, over `WRITES` writes. */
function oneWrite(set: NegentropySet): number {
  const times: number[] = [];
  for (let w = 0; w < WRITES; w++) {
    const i = ITEMS + w;
    const start = process.cpuUsage();
    set.insert(i + 1, idAt(i));
    set.snapshot();
    const { user, system } = process.cpuUsage(start);
    times.push(user + system);
  }
  return median(times);
}

const bench: Benchmark = {
  name: 'set-writes',
  async run() {
    const start = performance.now();
    const byWrites = grown();
    const growMs = performance.now() - start;
    const grownUs = oneWrite(byWrites);
    const builtUs = oneWrite(built());
    const items = ITEMS.toLocaleString('en-US');
    return [
      {
        name: `one write after the last, then a snapshot: set of ${items} grown by writes`,
        value: grownUs,
        unit: 'µs CPU',
        note: `${(grownUs / builtUs).toFixed(2)}× the same set built in one go (${builtUs.toFixed(0)} µs)`,
      },
      {
        name: `grow a set of ${items} by writes of ${PER_WRITE}, a snapshot after each`,
        value: growMs,
        unit: 'ms',
        note: `${((1000 * growMs) / (ITEMS / PER_WRITE)).toFixed(0)} µs a write`,
      },
    ];
  },
};
export default bench;
