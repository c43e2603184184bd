// "The store in memory": each store keeps up to 50,000 version bodies of its own, letting the
// one used longest ago go first. The cache alone at its real size, then a Store reading
// through it (its adapter counting what it is asked).
import { describe, expect, it } from 'vitest';
import type { BodyCache, StorageAdapter } from '../src/adapter.js';
import { randomId } from '../src/ids.js';
import { SigningKey } from '../src/keys.js';
import { LruBodyCache } from '../src/lru.js';
import { COLLECTION_CACHE_VERSIONS } from '../src/record-cache.js';
import type { RecordState } from '../src/record-state.js';
import { randomKey } from '../src/seal.js';
import { CACHED_WRITE_MOST, DEFAULT_BODY_CACHE, Store } from '../src/store.js';
import { createVersion, createVersions, type VersionDraft } from '../src/version.js';
import { fakeStores } from './fake-adapter.js';
import { nodeFixture } from './sync-helpers.js';

const { make } = nodeFixture();

const key = SigningKey.generate();
const spaceKey = randomKey();
const space = randomId();
/** Post `i`: record `r<i>`, alone. */
const post = (i: number): VersionDraft => ({
  space,
  collection: 'app.post',
  record: `r${i}`,
  supersedes: [],
  timestamp: 1_000 + i,
  files: [],
  body: { i },
});
const versions = (n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => createVersion(post(i), spaceKey, key)));

/** An adapter that counts the bodies it is asked for. */
function counting(adapter: StorageAdapter) {
  const asked: string[] = [];
  const wrapped: StorageAdapter = {
    ...adapter,
    getVersion: async (id) => {
      asked.push(id);
      return adapter.getVersion(id);
    },
  };
  delete wrapped.getVersions;
  return { adapter: wrapped, asked };
}

describe('the body cache', () => {
  it('holds 50,000 bodies by default and lets the one used longest ago go first', () => {
    expect(DEFAULT_BODY_CACHE).toBe(50_000);
    const cache = new LruBodyCache(DEFAULT_BODY_CACHE);
    const id = (i: number) => i.toString(16).padStart(64, '0');
    const body = new Uint8Array(1);
    for (let i = 0; i < DEFAULT_BODY_CACHE; i++) cache.set(id(i), body);
    expect(cache.size).toBe(DEFAULT_BODY_CACHE);
    // Body 0 is used again: body 1 is now the one used longest ago.
    expect(cache.get(id(0))).toBe(body);
    cache.set(id(DEFAULT_BODY_CACHE), body);
    expect(cache.size).toBe(DEFAULT_BODY_CACHE);
    expect(cache.get(id(1))).toBeUndefined();
    expect(cache.get(id(0))).toBe(body);
    expect(cache.get(id(2))).toBe(body);
    cache.set(id(DEFAULT_BODY_CACHE + 1), body);
    expect(cache.get(id(3))).toBeUndefined(); // 2 was used since, so 3 went
    expect(cache.get(id(DEFAULT_BODY_CACHE + 1))).toBe(body);
  });

  it('a store reads a body once, and again only after it was let go as the oldest used', async () => {
    const factory = fakeStores();
    const made = await versions(6);
    const writer = await Store.open(await factory.open('s'));
    await writer.commit({ versions: made });
    const { adapter, asked } = counting(await factory.open('s'));
    const store = await Store.open(adapter, { bodyCache: new LruBodyCache(4) });
    const read = async (i: number) => (await store.getVersion(made[i]!.id))!.id;
    for (const i of [0, 1, 2, 3]) expect(await read(i)).toBe(made[i]!.id);
    expect(asked).toHaveLength(4);
    await read(0); // a hit, and 0 is the one used last now
    expect(asked).toHaveLength(4);
    await read(4); // 1 goes, not 0
    await read(0);
    expect(asked).toHaveLength(5);
    await read(1);
    expect(asked.at(-1)).toBe(made[1]!.id);
    // Without a cache of its own given, a store keeps every body it read (up to 50,000).
    const plain = counting(await factory.open('s'));
    const own = await Store.open(plain.adapter);
    await own.getVersions(made.map((v) => v.id));
    await own.getVersions(made.map((v) => v.id));
    expect(plain.asked).toHaveLength(made.length);
  });

  it('a small write puts its bodies in the cache, a large one (a join, a pull) does not', async () => {
    const made = await versions(CACHED_WRITE_MOST + 2);
    const cache = new LruBodyCache(1_000);
    const store = await Store.open(await fakeStores().open('s'), { bodyCache: cache });
    const few = made.slice(0, 2);
    await store.commit({ versions: few });
    expect(few.map((v) => cache.peek(v.id) !== undefined)).toEqual([true, true]);
    const many = made.slice(2);
    expect(many).toHaveLength(CACHED_WRITE_MOST);
    await store.commit({ versions: many.slice(0, CACHED_WRITE_MOST - 1) });
    expect(cache.size).toBe(CACHED_WRITE_MOST + 1);
    const large = await versions(CACHED_WRITE_MOST + 1);
    const other = await Store.open(await fakeStores().open('t'), { bodyCache: cache });
    await other.commit({ versions: large });
    expect(cache.size).toBe(CACHED_WRITE_MOST + 1);
    // Read, they come from the adapter once, and through the cache after.
    await other.getVersions(large.map((v) => v.id));
    expect(cache.size).toBe(2 * CACHED_WRITE_MOST + 2);
  });

  it('a listing of more records than the cache holds reads past it; a smaller one through it', async () => {
    const bodies = new Map<string, Uint8Array>();
    const cache: BodyCache = {
      capacity: 16,
      get: (id) => bodies.get(id),
      set: (id, body) => void bodies.set(id, body),
      delete: (id) => void bodies.delete(id),
    };
    const node = await make({ stores: { ...fakeStores(), bodyCache: cache } });
    const space = (await node.spaces.create()).id;
    const items = Array.from({ length: 40 }, (_, i) => ({ body: { i } }));
    const written = await node.records.putMany(space, 'app.post', items);
    const posts = new Set(written.map((r) => r.version));
    const cached = () => [...bodies.keys()].filter((id) => posts.has(id)).length;
    bodies.clear();
    const all = await node.records.list(space, 'app.post');
    expect(all).toEqual([...written].sort((a, b) => (a.id < b.id ? -1 : 1)));
    expect(cached()).toBe(0);
    expect(await node.records.list(space, 'app.post', { limit: 10 })).toEqual(all.slice(0, 10));
    expect(cached()).toBe(10);
    // And the 16 the cache could hold are read through it again.
    expect(await node.records.list(space, 'app.post', { limit: 16 })).toEqual(all.slice(0, 16));
    expect(cached()).toBe(16);
  });
});

describe('a collection too large to keep', () => {
  it('gives a listing its records from the index as whole reads of it judge them', async () => {
    const made = await createVersions(
      Array.from({ length: COLLECTION_CACHE_VERSIONS + 100 }, (_, i) => post(i)),
      spaceKey,
      key,
      { perSignature: 64 },
    );
    // r0 replaced, r1 with two heads (the later one wins), r2 deleted.
    const changes: Array<Pick<VersionDraft, 'record' | 'supersedes' | 'timestamp' | 'body'>> = [
      { record: 'r0', supersedes: [made[0]!.id], timestamp: 9_000, body: { again: 0 } },
      { record: 'r1', supersedes: [made[1]!.id], timestamp: 9_001, body: { a: 1 } },
      { record: 'r1', supersedes: [made[1]!.id], timestamp: 9_002, body: { b: 1 } },
      { record: 'r2', supersedes: [made[2]!.id], timestamp: 9_003, body: null },
    ];
    const later = await createVersions(
      changes.map((v) => ({ space, collection: 'app.post', files: [], ...v })),
      spaceKey,
      key,
    );
    const store = await Store.open(await fakeStores().open('s'));
    await store.commit({ versions: [...made, ...later] });
    const states = await store.recordStates('app.post');
    const whole = (await store.records('app.post')).records;
    expect(states.size).toBe(COLLECTION_CACHE_VERSIONS + 100);
    const judged = (map: ReadonlyMap<string, RecordState>) =>
      [...map].map(([id, s]) => [id, s.winner()?.id, s.conflicts().map((m) => m.id)]);
    expect(judged(states)).toEqual(judged(whole));
    expect(states.get('r0')!.winner()!.id).toBe(later[0]!.id);
    expect(states.get('r1')!.winner()!.id).toBe(later[2]!.id);
    expect(
      states
        .get('r1')!
        .conflicts()
        .map((m) => m.id),
    ).toEqual([later[1]!.id]);
    expect(states.get('r2')!.winner()!.deleted).toBe(true);
  });
});
