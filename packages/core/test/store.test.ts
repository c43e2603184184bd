import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { StorageAdapter } from '../src/adapter.js';
import { fromHex, toHex } from '../src/bytes.js';
import { encodeCbor } from '../src/encoding.js';
import { randomId } from '../src/ids.js';
import { SigningKey } from '../src/keys.js';
import { LruBodyCache } from '../src/lru.js';
import { Negentropy, type NegentropySnapshot, NegentropyStorage } from '../src/negentropy/index.js';
import { randomKey } from '../src/seal.js';
import { Store, versionIndexKey } from '../src/store.js';
import { createVersion, type Version } from '../src/version.js';
import { fakeStores } from './fake-adapter.js';

const key = SigningKey.generate();
const spaceKey = randomKey();
const space = randomId();
const version = (record: string, timestamp: number, supersedes: string[] = []) =>
  createVersion(
    { space, collection: 'app.post', record, supersedes, timestamp, files: [], body: { record } },
    spaceKey,
    key,
  );

/** Counts the calls made to an adapter, and can hold back `get`. */
function instrument(adapter: StorageAdapter) {
  const calls: string[] = [];
  let gate: Promise<void> | undefined;
  const wrapped: StorageAdapter = {
    ...adapter,
    get: async (k) => {
      calls.push(`get ${k}`);
      const value = await adapter.get(k);
      await gate;
      return value;
    },
    list: async (p) => {
      calls.push(`list ${p}`);
      return adapter.list(p);
    },
    getVersion: async (id) => {
      calls.push(`getVersion ${id}`);
      return adapter.getVersion(id);
    },
  };
  return {
    adapter: wrapped,
    calls,
    hold: () => {
      let release!: () => void;
      gate = new Promise((r) => (release = r));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

describe('the store in memory', () => {
  it('reads the index once and keeps the entries it read or wrote', async () => {
    const { adapter, calls } = instrument(await fakeStores().open('s'));
    const store = await Store.open(adapter);
    // A new store: no summary, so the index is read (and found empty).
    expect(calls).toEqual(['get n', 'list v/']);
    const opened = calls.length;
    await store.commit({
      versions: [await version('a', 1)],
      entries: [{ key: 'x', value: new Uint8Array([1]) }],
    });
    expect(await store.get('x')).toEqual(new Uint8Array([1]));
    expect(await store.get('absent')).toBeUndefined();
    expect(await store.get('absent')).toBeUndefined();
    expect(calls.slice(opened).filter((c) => c.startsWith('get'))).toEqual(['get absent']);
  });

  it('does not keep an entry read while a change was landing', async () => {
    const inst = instrument(await fakeStores().open('s'));
    const store = await Store.open(inst.adapter);
    await store.commit({ entries: [{ key: 'k', value: new Uint8Array([1]) }] });
    await store.invalidate(); // forget it, so the next get goes to the adapter
    const release = inst.hold();
    const slowRead = store.get('k'); // reads the old value, then waits
    await new Promise((r) => setTimeout(r, 5));
    const write = store.commit({ entries: [{ key: 'k', value: new Uint8Array([2]) }] });
    await write;
    release();
    expect(await slowRead).toEqual(new Uint8Array([1]));
    // The stale read was not cached over the write.
    expect(await store.get('k')).toEqual(new Uint8Array([2]));
  });

  it('caches bodies, shares a factory cache, and reads again on invalidate', async () => {
    const factory = fakeStores();
    const cache = new LruBodyCache(10);
    const first = await Store.open(await factory.open('s'), { bodyCache: cache });
    const v = await version('a', 1);
    await first.commit({ versions: [v] });
    expect(cache.get(v.id)).toEqual(v.bytes);

    const inst = instrument(await factory.open('s'));
    const second = await Store.open(inst.adapter, { bodyCache: cache });
    expect((await second.getVersion(v.id))?.id).toBe(v.id);
    expect(inst.calls.some((c) => c.startsWith('getVersion'))).toBe(false);

    // Another writer adds a version: unseen until invalidate.
    const w = await version('b', 2);
    await first.commit({ versions: [w] });
    expect(second.hasVersion('app.post', w.id)).toBe(false);
    await second.invalidate();
    expect(second.hasVersion('app.post', w.id)).toBe(true);
    expect(second.fingerprint()).toBe(first.fingerprint());
  });

  it('opens past a damaged index entry and reports it', async () => {
    const adapter = await fakeStores().open('s');
    const store = await Store.open(adapter);
    const good = await version('a', 1);
    await store.commit({ versions: [good] });
    await adapter.batch([
      {
        key: versionIndexKey('app.post', 'a', 'ab'.repeat(32)),
        value: new Uint8Array([0xff, 0x00]),
      },
      { key: 'v/Bad Name/x', value: new Uint8Array([0]) },
    ]);
    const reopened = await Store.open(adapter);
    expect([...reopened.problems].sort()).toEqual(
      [versionIndexKey('app.post', 'a', 'ab'.repeat(32)), 'v/Bad Name/x'].sort(),
    );
    expect(reopened.hasVersion('app.post', good.id)).toBe(true);
  });

  it('reports an index entry with a negative timestamp, which no set could hold', async () => {
    const adapter = await fakeStores().open('s');
    const bad = versionIndexKey('app.post', 'x', 'cd'.repeat(32));
    const meta = { r: 'x', p: [], t: -1, a: key.did, f: [], d: false };
    await adapter.batch([{ key: bad, value: encodeCbor(meta) }]);
    const store = await Store.open(adapter);
    expect(store.problems).toEqual([bad]);
    expect(store.syncSet('app.post').size).toBe(0);
  });

  it('skips versions it holds and rebuilds what it derives only when the collection changed', async () => {
    const store = await Store.open(await fakeStores().open('s'));
    const v = await version('a', 1);
    expect((await store.commit({ versions: [v] })).map((x) => x.id)).toEqual([v.id]);
    expect(await store.commit({ versions: [v] })).toEqual([]);
    let builds = 0;
    const ids = () =>
      store.derived('app.post', (versions) => {
        builds++;
        return [...versions].map((m) => m.id);
      });
    expect(await ids()).toEqual([v.id]);
    expect(await ids()).toEqual([v.id]);
    expect(builds).toBe(1);
    await store.commit({ entries: [{ key: 'other', value: new Uint8Array(1) }] });
    await ids();
    expect(builds).toBe(1);
    const w = await version('a', 2, [v.id]);
    await store.commit({ versions: [w] });
    expect(await ids()).toEqual([v.id, w.id]);
    expect(builds).toBe(2);
  });

  it("keeps each collection's sync set as versions land, and builds it again when invalidated", async () => {
    const adapter = await fakeStores().open('s');
    const store = await Store.open(adapter);
    const initiate = (set: NegentropyStorage | NegentropySnapshot) =>
      toHex(new Negentropy(set).initiate());
    const sorted = (...vs: Version[]) => {
      const s = new NegentropyStorage();
      for (const v of vs) s.insert(v.timestamp, fromHex(v.id));
      s.seal();
      return s;
    };
    const a = await version('a', 5);
    await store.commit({ versions: [a] });
    const first = store.syncSet('app.post');
    expect(first.size).toBe(1);
    expect(store.syncSet('app.post')).toBe(first);
    const b = await version('b', 2);
    await store.commit({ versions: [b, a] });
    const second = store.syncSet('app.post');
    // The first snapshot is as it was; the second is what sorting from scratch gives.
    expect(first.size).toBe(1);
    expect(initiate(first)).toBe(initiate(sorted(a)));
    expect(initiate(second)).toBe(initiate(sorted(a, b)));
    expect(store.syncSet('app.none').size).toBe(0);

    // Another writer on the same adapter: seen once the store reads it again.
    const c = await version('c', 3);
    await (await Store.open(adapter)).commit({ versions: [c] });
    expect(store.syncSet('app.post').size).toBe(2);
    await store.invalidate();
    expect(initiate(store.syncSet('app.post'))).toBe(initiate(sorted(a, b, c)));
  });

  it('fingerprints the versions it holds, whatever order they came in', async () => {
    const vs = [await version('a', 1), await version('b', 2), await version('c', 3)];
    const one = await Store.open(await fakeStores().open('s'));
    const two = await Store.open(await fakeStores().open('s'));
    const empty = one.fingerprint();
    for (const v of vs) await one.commit({ versions: [v] });
    await two.commit({ versions: [...vs].reverse() });
    expect(one.fingerprint()).toBe(two.fingerprint());
    expect(one.fingerprint()).not.toBe(empty);
    expect(empty).toBe('7f9c9e31ac8256ca2f258583df262dbc');
  });
});

describe('a store under any arrival order', () => {
  test.prop(
    [
      fc
        .array(
          fc.record({ record: fc.constantFrom('a', 'b'), pick: fc.nat(), del: fc.boolean() }),
          { minLength: 1, maxLength: 12 },
        )
        .chain((steps) =>
          fc.tuple(
            fc.constant(steps),
            fc.array(fc.nat(), { minLength: steps.length, maxLength: steps.length }),
          ),
        ),
    ],
    { numRuns: 30 },
  )('holds the same records and fingerprint', async ([steps, keys]) => {
    const versions: Version[] = [];
    for (const [i, s] of steps.entries()) {
      const earlier = versions.filter((v) => v.record === s.record);
      const supersedes = earlier.filter((_, j) => (s.pick >> j) & 1).map((v) => v.id);
      versions.push(
        await createVersion(
          {
            space,
            collection: 'app.post',
            record: s.record,
            supersedes,
            timestamp: 1000 + (i % 3),
            files: [],
            body: s.del ? null : { i },
          },
          spaceKey,
          key,
        ),
      );
    }
    const shuffled = versions
      .map((v, i) => [keys[i]!, v] as const)
      .sort((x, y) => x[0] - y[0])
      .map(([, v]) => v);
    const summary = async (order: Version[]) => {
      const store = await Store.open(await fakeStores().open('s'));
      for (const v of order) await store.commit({ versions: [v] });
      const records = [...(await store.records('app.post')).records].sort(([x], [y]) =>
        x < y ? -1 : 1,
      );
      return {
        fingerprint: store.fingerprint(),
        records: records.map(([id, r]) => ({
          id,
          winner: r.winner()?.id,
          conflicts: r.conflicts().map((m) => m.id),
        })),
      };
    };
    expect(await summary(shuffled)).toEqual(await summary(versions));
  });
});
