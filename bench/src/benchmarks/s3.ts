// The S3 blob store's put/get/list throughput against s3rver on loopback, beside raw signed
// fetches through aws4fetch (what the store is built on) to the same server in the same run.
import { createRequire } from 'node:module';
import type { BlobStore } from '@minca/core';
import {
  S3RVER_ACCESS_KEY_ID as ACCESS_KEY_ID,
  S3RVER_SECRET_ACCESS_KEY as SECRET_ACCESS_KEY,
  startS3rver,
} from '@minca/s3/testing';
import { type Benchmark, type Figure, median } from '../harness.js';

const BUCKET = 'bench';
const CONCURRENCY = 8;
// Measured passes after a warm-up; fewer of the 128 MB set, to stay near a minute on 2 cores.
const SETS = [
  { label: '256 KiB', count: 500, size: 256 * 1024, runs: 2 },
  { label: '1 KiB', count: 1_000, size: 1024, runs: 3 },
] as const;

interface SignerLike {
  sign(url: string, init: RequestInit): Promise<Request>;
}
type SignerConstructor = new (options: Record<string, string>) => SignerLike;

// aws4fetch is a dependency of @minca/s3, not of the bench: load it from there.
const s3Entry = createRequire(import.meta.url).resolve('@minca/s3');
const { AwsClient } = createRequire(s3Entry)('aws4fetch') as { AwsClient: SignerConstructor };

async function inParallel(count: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** The same three operations, done by the blob store or by hand with aws4fetch. */
interface Client {
  put(key: string, bytes: Uint8Array<ArrayBuffer>): Promise<void>;
  get(key: string): Promise<Uint8Array | null>;
  list(prefix: string): Promise<number>;
}

function storeClient(store: BlobStore): Client {
  return {
    put: (key, bytes) => store.put(key, bytes),
    get: (key) => store.get(key),
    list: async (prefix) => (await store.list(prefix)).length,
  };
}

function rawClient(endpoint: string): Client {
  const signer = new AwsClient({
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    region: 'auto',
    service: 's3',
  });
  const send = async (url: string, init: RequestInit) => {
    const response = await fetch(await signer.sign(url, init));
    if (!response.ok) throw new Error(`raw ${init.method} answered ${response.status}`);
    return response;
  };
  return {
    async put(key, bytes) {
      await (
        await send(`${endpoint}/${BUCKET}/${key}`, { method: 'PUT', body: bytes })
      ).arrayBuffer();
    },
    async get(key) {
      return new Uint8Array(
        await (await send(`${endpoint}/${BUCKET}/${key}`, { method: 'GET' })).arrayBuffer(),
      );
    },
    async list(prefix) {
      let count = 0;
      let token: string | undefined;
      do {
        let url = `${endpoint}/${BUCKET}?list-type=2&prefix=${encodeURIComponent(prefix)}`;
        if (token) url += `&continuation-token=${encodeURIComponent(token)}`;
        const xml = await (await send(url, { method: 'GET' })).text();
        count += xml.split('<Key>').length - 1;
        token = /<NextContinuationToken>([^<]+)</.exec(xml)?.[1];
      } while (token);
      return count;
    },
  };
}

const newTimes = () => ({ put: [] as number[], get: [] as number[], list: [] as number[] });

const time = async (fn: () => Promise<unknown>) => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};

const bench: Benchmark = {
  name: 's3',
  async run() {
    // The tests' s3rver (@minca/s3/testing), so bench and tests start it the same way.
    const s3 = await startS3rver({ bucket: BUCKET });
    const figures: Figure[] = [];
    try {
      const store = storeClient(s3.store());
      const raw = rawClient(s3.endpoint);
      for (const set of SETS) {
        const bytes = new Uint8Array(set.size).map((_, i) => (i * 131) & 0xff);
        const keys = Array.from({ length: set.count }, (_, i) => `${set.size}/k${i}`);
        const prefix = `${set.size}/`;
        const times = { store: newTimes(), raw: newTimes() };
        // A warm-up pass each, then alternate so drift in the shared machine hits both alike.
        for (let run = 0; run <= set.runs; run++) {
          for (const [client, into] of [
            [raw, times.raw],
            [store, times.store],
          ] as const) {
            const put = await time(() => inParallel(set.count, (i) => client.put(keys[i]!, bytes)));
            const get = await time(() =>
              inParallel(set.count, async (i) => {
                const got = await client.get(keys[i]!);
                if (got?.length !== set.size) throw new Error('read back the wrong size');
              }),
            );
            let listed = 0;
            const list = await time(async () => (listed = await client.list(prefix)));
            if (listed !== set.count) throw new Error(`listed ${listed} of ${set.count}`);
            if (run > 0) {
              into.put.push(put);
              into.get.push(get);
              into.list.push(list);
            }
          }
        }
        const mb = (set.count * set.size) / 1e6;
        for (const op of ['put', 'get'] as const) {
          const storeMs = median(times.store[op]);
          const rawMs = median(times.raw[op]);
          const ratio = `${(rawMs / storeMs).toFixed(2)}× raw aws4fetch`;
          figures.push(
            {
              name: `${op} ${set.count} × ${set.label}`,
              value: set.count / (storeMs / 1000),
              unit: 'objects/s',
              note: ratio,
            },
            {
              name: `${op} ${set.count} × ${set.label}`,
              value: mb / (storeMs / 1000),
              unit: 'MB/s',
              note: ratio,
            },
          );
        }
        const listMs = median(times.store.list);
        figures.push({
          name: `list ${set.count} keys`,
          value: set.count / (listMs / 1000),
          unit: 'keys/s',
          note: `${(median(times.raw.list) / listMs).toFixed(2)}× raw aws4fetch`,
        });
      }
    } finally {
      await s3.close();
    }
    return figures;
  },
};

export default bench;
