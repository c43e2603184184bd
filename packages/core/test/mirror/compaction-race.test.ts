/**
 * Compaction racing pulls: two writers push, compact and pull at once through a blob store with
 * random delays and an eventually consistent listing (new keys hidden for a while, deleted ones
 * still listed). Whatever was in the mirror stays there, and both end with everything.
 */
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blob-store.ts';
import { seededRandom as random } from '../../src/testing/seeded-random.ts';
import { fakeBlobStore } from '../fake-adapter.ts';
import { fingerprint } from '../sync-helpers.ts';
import { idsInMirror, mirroredNode } from './mirror-helpers.ts';

/**
 * `inner` with random delays, and a listing that lags behind puts and deletes. Before each
 * delete it checks the protocol's rule: every version of the segment going is in another one.
 */
function laggy(inner: BlobStore, rand: () => number, violations: string[]): BlobStore {
  let op = 0;
  const put = new Map<string, number>();
  const deleted = new Map<string, number>();
  const pause = () => new Promise((r) => setTimeout(r, Math.floor(rand() * 3)));
  const recent = (at: number | undefined) => at !== undefined && op - at < 12;
  return {
    async get(key) {
      await pause();
      return inner.get(key);
    },
    async put(key, bytes) {
      await pause();
      await inner.put(key, bytes);
      put.set(key, ++op);
      deleted.delete(key);
    },
    async delete(key) {
      await pause();
      const space = key.split('/')[0]!;
      const going = await idsInMirror({ ...inner, list: async () => [key] }, space);
      const rest = await idsInMirror(
        { ...inner, list: async (p) => (await inner.list(p)).filter((k) => k !== key) },
        space,
      );
      for (const id of going) if (!rest.has(id)) violations.push(`${key} deleted with ${id}`);
      await inner.delete(key);
      deleted.set(key, ++op);
      put.delete(key);
    },
    async list(prefix) {
      await pause();
      op++;
      const keys = (await inner.list(prefix)).filter((k) => !(recent(put.get(k)) && rand() < 0.5));
      for (const [k, at] of deleted)
        if (k.startsWith(prefix) && recent(at) && rand() < 0.5) keys.push(k);
      return keys.sort();
    },
  };
}

describe('compaction racing pulls', () => {
  for (const seed of [1, 2, 3]) {
    it(`loses nothing (seed ${seed}, 120 rounds)`, async () => {
      const rand = random(seed);
      const bucket = fakeBlobStore();
      const violations: string[] = [];
      const mirror = laggy(bucket, rand, violations);
      // Pushes only when the test says: a timer push between rounds (a loaded machine takes
      // over 5 s) would compact where the test can't count it.
      const config = { store: mirror, pushDelayMs: 3_600_000 };
      const a = await mirroredNode([config]);
      const b = await mirroredNode([config]);
      const { id: space } = await a.node.spaces.create();
      await a.node.spaces.setRole(space, b.node.did, 'writer');
      await b.node.spaces.join(await a.node.spaces.share(space, b.node.did));
      const pushed = new Set<string>();
      const shrank = { a: 0, b: 0 };
      const segments = async (node: typeof a.node) =>
        (await node.spaces.status(space)).mirrors[0]!.segments;
      for (let round = 0; round < 120; round++) {
        for (const [name, side] of [
          ['a', a],
          ['b', b],
        ] as const) {
          const writes = Math.floor(rand() * 3);
          for (let i = 0; i < writes; i++)
            await side.node.records.put(space, 'app.post', { name, round, i });
        }
        const before = { a: await segments(a.node), b: await segments(b.node) };
        // Both push (and maybe compact) and pull at once.
        await Promise.all([a.node.spaces.syncMirrors(space), b.node.spaces.syncMirrors(space)]);
        if ((await segments(a.node)) < before.a) shrank.a++;
        if ((await segments(b.node)) < before.b) shrank.b++;
        // Whatever either had pushed is still somewhere in the mirror.
        const inMirror = await idsInMirror(bucket, space);
        for (const id of pushed) expect(inMirror.has(id), `version ${id} lost`).toBe(true);
        for (const id of inMirror) pushed.add(id);
        expect(violations).toEqual([]);
      }
      // More pulls, since the listing lags: a key stays hidden for at most 12 store operations,
      // and each round lists at least twice, so the nodes must meet within these 20 rounds.
      for (let i = 0; i < 20; i++) {
        await Promise.all([a.node.spaces.syncMirrors(space), b.node.spaces.syncMirrors(space)]);
        if ((await fingerprint(a.node, space)) === (await fingerprint(b.node, space))) break;
      }
      expect(shrank.a + shrank.b).toBeGreaterThan(2); // compactions did race the pulls
      expect(await fingerprint(a.node, space)).toBe(await fingerprint(b.node, space));
      const held = (await a.node.spaces.status(space)).versions;
      expect((await idsInMirror(bucket, space)).size).toBe(held);
      expect(a.errors).toEqual([]);
      expect(b.errors).toEqual([]);
      await a.node.close();
      await b.node.close();
    });
  }
});
