// Mirroring a space of 100,000 versions through a real S3 server (s3rver on loopback): the push
// of a node that has them all, then the pull of a node that has none, with the segments and HTTP
// requests each took. Beside them, the raw put/get throughput of 256 KiB objects to the same
// server through the same blob store in the same run, which is what a segment is. One run each
// (a 100,000-version push is not repeated); the machine is shared, so read ratios, not seconds.
import { createNode, type MincaNode } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { startS3rver } from '@minca/s3/testing';
import type { Benchmark, Figure } from '../harness.js';

// MINCA_BENCH_MIRROR_VERSIONS makes a quicker run; the figure of record is 100,000.
const VERSIONS = Number(process.env.MINCA_BENCH_MIRROR_VERSIONS ?? 100_000);
const BUCKET = 'bench-mirror';
/** As many requests in flight as a mirror has. */
const CONCURRENCY = 4;
const RAW_OBJECTS = 200;
const RAW_SIZE = 256 * 1024;

/** HTTP requests sent, by method, through a counting fetch. */
function countingFetch() {
  const counts = { GET: 0, PUT: 0, DELETE: 0, other: 0 };
  const fetch = (request: Request) => {
    const method = request.method as keyof typeof counts;
    counts[method in counts ? method : 'other']++;
    return globalThis.fetch(request);
  };
  const total = () => counts.GET + counts.PUT + counts.DELETE + counts.other;
  return { counts, fetch, total };
}

async function inParallel(count: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const seconds = async (fn: () => Promise<unknown>) => {
  const start = performance.now();
  await fn();
  return (performance.now() - start) / 1000;
};

const bench: Benchmark = {
  name: 'mirror',
  async run() {
    const s3 = await startS3rver({ bucket: BUCKET });
    const figures: Figure[] = [];
    const nodes: MincaNode[] = [];
    try {
      const http = countingFetch();
      const store = (prefix: string) => s3.store({ prefix, fetch: http.fetch });

      // Raw throughput first: 256 KiB objects, put then get, through the same store and server.
      const raw = store('raw');
      const bytes = new Uint8Array(RAW_SIZE).map((_, i) => (i * 131) & 0xff);
      const putS = await seconds(() => inParallel(RAW_OBJECTS, (i) => raw.put(`o${i}`, bytes)));
      const getS = await seconds(() =>
        inParallel(RAW_OBJECTS, async (i) => {
          if ((await raw.get(`o${i}`))?.length !== RAW_SIZE) throw new Error('short read');
        }),
      );
      const rawMB = (RAW_OBJECTS * RAW_SIZE) / 1e6;
      figures.push(
        { name: `raw put ${RAW_OBJECTS} × 256 KiB`, value: rawMB / putS, unit: 'MB/s' },
        { name: `raw get ${RAW_OBJECTS} × 256 KiB`, value: rawMB / getS, unit: 'MB/s' },
      );

      // The writer: every version made before it mirrors (not timed).
      const writerStores = memoryStores();
      let writer = await createNode({ stores: writerStores });
      nodes.push(writer);
      const { id: space } = await writer.spaces.create();
      for (let i = 0; i < VERSIONS - 1; i++)
        await writer.records.put(space, 'app.post', { i, text: `post ${i}` });
      const errors: string[] = [];
      const pulling = await createNode({
        stores: memoryStores(),
        mirrors: [store('mirror')],
        onMirrorError: (e) => errors.push(e.message),
      });
      nodes.push(pulling);
      await writer.spaces.setRole(space, pulling.did, 'writer');
      const ticket = await writer.spaces.share(space, pulling.did);
      const versions = (await writer.spaces.status(space)).versions;
      await writer.close();

      const mirror = store('mirror');
      const onMirrorError = (e: Error) => errors.push(e.message);
      let before = http.total();
      writer = await createNode({ stores: writerStores, mirrors: [mirror], onMirrorError });
      nodes.push(writer);
      // Opening reads the store's 100,000 index entries; the push starts once it is open.
      const openS = await seconds(() => writer.spaces.open(space));
      const pushS = await seconds(() => writer.spaces.syncMirrors(space));
      const pushRequests = http.total() - before;
      const segments = (await mirror.list(`${space}/`)).length;
      const segmentMB =
        (
          await Promise.all(
            (await mirror.list(`${space}/`)).map(async (k) => (await mirror.get(k))!.length),
          )
        ).reduce((a, b) => a + b, 0) / 1e6;
      await writer.close();

      before = http.total();
      const pullS = await seconds(async () => {
        await pulling.spaces.join(ticket);
        await pulling.spaces.syncMirrors(space);
      });
      const pullRequests = http.total() - before;
      const pulled = (await pulling.spaces.status(space)).versions;
      if (pulled !== versions) throw new Error(`pulled ${pulled} of ${versions} versions`);
      if (errors.length > 0) throw new Error(`mirror errors: ${errors.join('; ')}`);

      const note = (s: number) => `${(segmentMB / s).toFixed(1)} MB/s of segments`;
      figures.push(
        { name: `open ${versions} versions`, value: openS, unit: 's', note: 'before the push' },
        { name: `push ${versions} versions`, value: pushS, unit: 's', note: note(pushS) },
        {
          name: 'push segments',
          value: segments,
          unit: 'segments',
          note: `${segmentMB.toFixed(1)} MB`,
        },
        { name: 'push requests', value: pushRequests, unit: 'requests' },
        { name: `pull ${versions} versions`, value: pullS, unit: 's', note: note(pullS) },
        { name: 'pull requests', value: pullRequests, unit: 'requests' },
        { name: 'pull', value: versions / pullS, unit: 'versions/s', note: 'signatures checked' },
      );
    } finally {
      for (const node of nodes) await node.close().catch(() => undefined);
      await s3.close();
    }
    return figures;
  },
};

export default bench;
