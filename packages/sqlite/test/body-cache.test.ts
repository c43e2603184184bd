// The body cache a SQLite factory's stores share is bounded in bytes as well as in bodies, over
// a real SQLite file: large records written, and taken in from a peer, don't pile up in memory.
import {
  createMemoryTransportPair,
  createNode,
  type LruBodyCache,
  type MincaNode,
} from '@minca/core';
import { afterEach, describe, expect, it } from 'vitest';
import { SQLITE_BODY_CACHE_BYTES, sqliteStores } from '../src/index.ts';
import { TempDir } from './temp-db.ts';

let dir: TempDir;
const nodes: MincaNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close();
  dir?.dispose();
});

/** Records of about 200 KiB each: 100 of them are 20 MB, more than the cache may hold. */
const RECORDS = 100;
const big = (i: number) => ({ i, text: String(i % 10).repeat(200 * 1024) });

async function sqliteNode(name: string) {
  const stores = sqliteStores(dir.open(name));
  const node = await createNode({ stores });
  nodes.push(node);
  return { node, cache: stores.bodyCache as LruBodyCache };
}

describe('the SQLite stores’ body cache', () => {
  it('holds no more bytes than its budget, through large puts and a sync', async () => {
    dir = new TempDir();
    expect(SQLITE_BODY_CACHE_BYTES).toBe(16 * 1024 * 1024);
    const a = await sqliteNode('a.sqlite');
    const b = await sqliteNode('b.sqlite');
    const { id: space } = await a.node.spaces.create();
    await a.node.spaces.setRole(space, b.node.did, 'writer');
    await b.node.spaces.join(await a.node.spaces.share(space, b.node.did));

    for (let i = 0; i < RECORDS; i++) {
      await a.node.records.put(space, 'app.doc', big(i));
      expect(a.cache.bytes).toBeLessThanOrEqual(SQLITE_BODY_CACHE_BYTES);
    }
    // Full of large bodies: fewer than were written, but most of the budget.
    expect(a.cache.size).toBeLessThan(RECORDS);
    expect(a.cache.bytes).toBeGreaterThan(SQLITE_BODY_CACHE_BYTES / 2);

    // Taken in from a peer: views of the messages they came in, kept as bodies of their own.
    const [x, y] = createMemoryTransportPair();
    a.node.connect(x);
    b.node.connect(y);
    const end = Date.now() + 60_000;
    while (
      (await b.node.spaces.status(space)).versions < (await a.node.spaces.status(space)).versions
    ) {
      if (Date.now() > end) expect.fail('timed out waiting for the sync');
      expect(b.cache.bytes).toBeLessThanOrEqual(SQLITE_BODY_CACHE_BYTES);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(b.cache.bytes).toBeLessThanOrEqual(SQLITE_BODY_CACHE_BYTES);
    expect(b.cache.bytes).toBeGreaterThan(SQLITE_BODY_CACHE_BYTES / 2);

    // Every record still reads whole, from the cache or from the database.
    for (const side of [a, b]) {
      const docs = await side.node.records.list(space, 'app.doc');
      expect(docs.map((d) => (d.body as { i: number }).i).sort((p, q) => p - q)).toEqual(
        Array.from({ length: RECORDS }, (_, i) => i),
      );
      for (const d of docs) {
        const body = d.body as { i: number; text: string };
        expect(body.text).toBe(big(body.i).text);
      }
    }
  }, 120_000);
});
