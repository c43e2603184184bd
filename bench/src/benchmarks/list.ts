// Listing 100,000 records on @minca/memory, beside its raw limit measured in the same run:
// opening (XChaCha20-Poly1305, with the cipher the node uses: node:crypto's once it was handed
// `nodeCrypto`) and decoding 100,000 versions of the same bodies in a tight loop, one after
// another on one thread. The node is handed worker threads, as an app on Node would hand them
// (one per core but the calling thread's): a listing opens its bodies there while the calling
// thread reads and decodes the next.
import * as crypto from 'node:crypto';
import { availableParallelism } from 'node:os';
import * as workers from 'node:worker_threads';
import {
  createNode,
  createVersions,
  nodeCrypto,
  openBody,
  randomKey,
  SigningKey,
  type VersionDraft,
} from '@minca/core';
import { memoryStores } from '@minca/memory';
import { type Benchmark, median } from '../harness.js';

const COUNT = 100_000;
/**
 * Runs of each, one after the other in pairs: this machine's speed drifts within minutes, so each
 * listing is set against the raw loop run just before it, and the ratio is the median of those.
 */
const RUNS = 5;
/** Versions a putMany of the set-up writes at once, under batch signatures (set-up only). */
const CHUNK = 10_000;

const post = (i: number) => ({ text: `post ${i}`, n: i });

const bench: Benchmark = {
  name: 'list',
  async run() {
    const threads = Math.max(1, availableParallelism() - 1);
    const node = await createNode({
      stores: memoryStores(),
      crypto: nodeCrypto(crypto, { workers, threads }),
    });
    const space = (await node.spaces.create()).id;
    for (let at = 0; at < COUNT; at += CHUNK) {
      const items = Array.from({ length: CHUNK }, (_, i) => ({ body: post(at + i) }));
      await node.records.putMany(space, 'app.post', items, { perSignature: 64 });
    }
    // The same bodies, sealed as a node seals them, for the raw loop.
    const spaceKey = randomKey();
    const drafts = Array.from(
      { length: COUNT },
      (_, i): VersionDraft => ({
        space,
        collection: 'app.post',
        record: `r${i}`,
        supersedes: [],
        timestamp: 1_700_000_000_000 + i,
        files: [],
        body: post(i),
      }),
    );
    const versions = await createVersions(drafts, spaceKey, SigningKey.generate(), {
      perSignature: 64,
    });
    const raw: number[] = [];
    const listed: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      let start = performance.now();
      let opened = 0;
      for (const v of versions) if (openBody(v, spaceKey) !== null) opened++;
      const rawRate = opened / ((performance.now() - start) / 1000);
      start = performance.now();
      const records = await node.records.list(space, 'app.post');
      const listRate = records.length / ((performance.now() - start) / 1000);
      if (records.length !== COUNT || opened !== COUNT) throw new Error('not every record read');
      // The first run warms up.
      if (run === 0) continue;
      raw.push(rawRate);
      listed.push(listRate);
    }
    await node.close();
    const limit = median(raw);
    const ratios = listed.map((rate, i) => rate / raw[i]!);
    // The cipher the node uses: node:crypto's when nodeCrypto hands one in (older cores: noble's).
    const cipher = nodeCrypto(crypto).chacha20poly1305 ? 'node:crypto' : '@noble';
    const rate = median(listed);
    return [
      {
        name: `raw: open + decode ${COUNT.toLocaleString('en-US')} bodies`,
        value: limit,
        unit: 'bodies/s',
        note: `${cipher} XChaCha20-Poly1305, tight loop`,
      },
      {
        name: `list ${COUNT.toLocaleString('en-US')} records (memory)`,
        value: rate,
        unit: 'records/s',
        note: `${median(ratios).toFixed(2)}× raw open + decode (limit ≥ 0.8×; runs ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}); opened on ${threads} worker thread${threads === 1 ? '' : 's'}`,
      },
    ];
  },
};
export default bench;
