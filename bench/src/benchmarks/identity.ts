// What keys by role cost (spec 05 §6): puts and an initial sync by writers certified through a
// device (the chain checked once per writer record, then looked up per version) beside the same
// job by keys that are their own accounts, in the same run, alternated so load falls on both.
import {
  createMemoryTransportPair,
  createNode,
  issueCertificate,
  type MincaNode,
  type NodeConfig,
  SigningKey,
} from '@minca/core';
import { memoryStores } from '@minca/memory';
import { type Benchmark, median } from '../harness.js';

const PUTS = Number(process.env.MINCA_BENCH_IDENTITY_PUTS ?? 3_000);
const SYNCED = Number(process.env.MINCA_BENCH_IDENTITY_SYNCED ?? 10_000);
const RUNS = 3;

/** A node config: its own key, or a writer certified by a device of a fresh account. */
async function identity(certified: boolean): Promise<Pick<NodeConfig, 'key' | 'certificates'>> {
  const key = SigningKey.generate();
  if (!certified) return { key };
  const root = SigningKey.generate();
  const device = SigningKey.generate();
  const issued = Date.now();
  const deviceCert = await issueCertificate(root, {
    kind: 'device',
    subject: device.did,
    account: root.did,
    issued,
  });
  const writerCert = await issueCertificate(device, {
    kind: 'writer',
    subject: key.did,
    account: root.did,
    issued,
  });
  return { key, certificates: [deviceCert.bytes, writerCert.bytes] };
}

async function puts(certified: boolean): Promise<number> {
  const node = await createNode({ stores: memoryStores(), ...(await identity(certified)) });
  const space = await node.spaces.create();
  const start = performance.now();
  for (let i = 0; i < PUTS; i++)
    await node.records.put(space.id, 'app.post', { text: `post ${i}` });
  const rate = PUTS / ((performance.now() - start) / 1000);
  await node.close();
  return rate;
}

async function level(a: MincaNode, b: MincaNode, space: string): Promise<void> {
  const end = Date.now() + 600_000;
  for (;;) {
    const [x, y] = await Promise.all([a.spaces.status(space), b.spaces.status(space)]);
    if (x.fingerprint === y.fingerprint) return;
    if (Date.now() > end) throw new Error('the nodes did not converge');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Versions/s of an initial sync of `SYNCED` records into a node that holds nothing yet. */
async function sync(certified: boolean): Promise<number> {
  const owner = await createNode({ stores: memoryStores(), ...(await identity(certified)) });
  const joiner = await createNode({ stores: memoryStores(), ...(await identity(certified)) });
  const space = await owner.spaces.create();
  await owner.spaces.setRole(space.id, joiner.did, 'writer');
  for (let i = 0; i < SYNCED; i += 100)
    await Promise.all(
      Array.from({ length: Math.min(100, SYNCED - i) }, (_, j) =>
        owner.records.put(space.id, 'app.post', { text: `post ${i + j}` }),
      ),
    );
  await joiner.spaces.join(await owner.spaces.share(space.id, joiner.did));
  const [a, b] = createMemoryTransportPair();
  const start = performance.now();
  owner.connect(a);
  joiner.connect(b);
  await level(owner, joiner, space.id);
  const rate = SYNCED / ((performance.now() - start) / 1000);
  await owner.close();
  await joiner.close();
  return rate;
}

const bench: Benchmark = {
  name: 'identity',
  async run() {
    const put = { own: [] as number[], certified: [] as number[] };
    const synced = { own: [] as number[], certified: [] as number[] };
    await puts(false); // warm-up
    for (let i = 0; i < RUNS; i++) {
      put.own.push(await puts(false));
      put.certified.push(await puts(true));
    }
    for (let i = 0; i < RUNS; i++) {
      synced.own.push(await sync(false));
      synced.certified.push(await sync(true));
    }
    const ratio = (a: number[], b: number[]) => median(b) / median(a);
    return [
      { name: `puts, own key (${PUTS})`, value: median(put.own), unit: 'puts/s' },
      {
        name: 'puts, certified writer',
        value: median(put.certified),
        unit: 'puts/s',
        note: `${ratio(put.own, put.certified).toFixed(3)}× own key`,
      },
      {
        name: `initial sync in process, own keys (${SYNCED})`,
        value: median(synced.own),
        unit: 'versions/s',
      },
      {
        name: 'initial sync in process, certified writers',
        value: median(synced.certified),
        unit: 'versions/s',
        note: `${ratio(synced.own, synced.certified).toFixed(3)}× own keys`,
      },
    ];
  },
};
export default bench;
