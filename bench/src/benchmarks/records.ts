// Records put/get per second on @minca/memory, beside the crypto every put must do (one
// Ed25519 signature, one seal, one SHA-256) measured on the same bytes in the same run.
import { createNode, encodeCbor, hashId, IdSum, randomKey, SigningKey, seal } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { type Benchmark, median, medianMs } from '../harness.js';

const COUNT = 5_000;
const RUNS = 5;

interface Run {
  put: number;
  get: number;
  list: number;
  floor: number;
}

async function once(): Promise<Run> {
  const node = await createNode({ stores: memoryStores() });
  const space = await node.spaces.create();
  const ids: string[] = [];
  let start = performance.now();
  for (let i = 0; i < COUNT; i++) {
    ids.push((await node.records.put(space.id, 'app.post', { text: `post ${i}`, n: i })).id);
  }
  const put = COUNT / ((performance.now() - start) / 1000);
  start = performance.now();
  for (const id of ids) await node.records.get(space.id, 'app.post', id);
  const get = COUNT / ((performance.now() - start) / 1000);
  start = performance.now();
  await node.records.list(space.id, 'app.post');
  const list = COUNT / ((performance.now() - start) / 1000);
  await node.close();

  const key = SigningKey.generate();
  const spaceKey = randomKey();
  start = performance.now();
  for (let i = 0; i < COUNT; i++) {
    const body = seal(spaceKey, encodeCbor({ text: `post ${i}`, n: i }));
    hashId(await key.sign(body));
  }
  const floor = COUNT / ((performance.now() - start) / 1000);
  return { put, get, list, floor };
}

const bench: Benchmark = {
  name: 'records',
  async run() {
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await once());
    const m = (k: keyof Run) => median(runs.map((r) => r[k]));
    const floor = m('floor');
    // A store's fingerprint is one hash over a running sum of its ids: what it costs to build
    // that sum from scratch, as opening a store of 1,000,000 versions does.
    const ids = Array.from({ length: 1_000_000 }, (_, i) => hashId(encodeCbor(i)));
    const sumMs = await medianMs(3, () => {
      const sum = new IdSum();
      for (const id of ids) sum.add(id);
      return sum.fingerprint();
    });
    return [
      {
        name: 'put (memory)',
        value: m('put'),
        unit: 'records/s',
        note: `${(m('put') / floor).toFixed(2)}× sign+seal+hash alone (${Math.round(floor)}/s)`,
      },
      { name: 'get (memory)', value: m('get'), unit: 'records/s' },
      { name: `list ${COUNT} (memory)`, value: m('list'), unit: 'records/s' },
      {
        name: 'fingerprint of 1,000,000 ids, from scratch',
        value: sumMs,
        unit: 'ms',
        note: 'after that, one SHA-256 per fingerprint',
      },
    ];
  },
};
export default bench;
