// Rules of "Mirrors", each isolated, through the node and a blob store in memory: segments of
// about 256 KiB; a writer compacts at 32 segments and twice what its last compaction left; the
// state's `mirror:read:` and `mirror:known:` entries are read once, when the mirror starts.
import { describe, expect, it } from 'vitest';
import type { StorageAdapter, StoreFactory } from '../../src/adapter.ts';
import { COMPACTED_KEY, KNOWN_PREFIX, READ_PREFIX } from '../../src/mirror/mirror-state.ts';
import { MAX_SEGMENT_BYTES, parseSegmentKey, SEGMENT_BYTES } from '../../src/mirror/segment.ts';
import { COMPACT_MIN_SEGMENTS } from '../../src/mirror/space-mirror.ts';
import { createNode } from '../../src/node.ts';
import { type Data, fakeBlobStore, fakeStores } from '../fake-adapter.ts';
import { idsInMirror, mirroredNode } from './mirror-helpers.ts';

/** Text of `n` characters that differs per `seed`, so bodies don't repeat. */
const text = (n: number, seed: number) =>
  Array.from({ length: Math.ceil(n / 8) }, (_, i) => ((seed * 7919 + i) * 2654435761).toString(36))
    .join('')
    .slice(0, n);

describe('mirrors, rule by rule', () => {
  it('packs what it pushes into segments of about 256 KiB', async () => {
    expect(SEGMENT_BYTES).toBe(256 * 1024);
    const bucket = fakeBlobStore();
    const { node, errors } = await mirroredNode([bucket]);
    const { id: space } = await node.spaces.create();
    // About 1.2 MB of versions of 3 to 5 KB each.
    for (let i = 0; i < 300; i++)
      await node.records.put(space, 'app.note', { i, text: text(3_000 + (i % 3) * 1_000, i) });
    await node.spaces.syncMirrors(space);
    const keys = (await bucket.list(`${space}/`)).sort(
      (a, b) => parseSegmentKey(a)!.counter - parseSegmentKey(b)!.counter,
    );
    const sizes = await Promise.all(keys.map(async (k) => (await bucket.get(k))!.length));
    expect(sizes.length).toBeGreaterThanOrEqual(4);
    // Each full segment is within one version of 256 KiB; the last holds the rest.
    for (const size of sizes.slice(0, -1)) {
      expect(size).toBeGreaterThan(SEGMENT_BYTES - 8 * 1024);
      expect(size).toBeLessThanOrEqual(SEGMENT_BYTES + 4 * 1024);
    }
    expect(sizes.at(-1)!).toBeLessThanOrEqual(MAX_SEGMENT_BYTES);
    expect((await idsInMirror(bucket, space)).size).toBe(
      (await node.spaces.status(space)).versions,
    );
    expect(errors).toEqual([]);
    await node.close();
  });

  it('compacts at 32 segments and twice what the last compaction left, not before', async () => {
    expect(COMPACT_MIN_SEGMENTS).toBe(32);
    const bucket = fakeBlobStore();
    const backing = new Map<string, Data>();
    const { node, errors } = await mirroredNode([bucket], backing);
    const { id: space } = await node.spaces.create();
    const segments = async () => (await node.spaces.status(space)).mirrors[0]!.segments;
    const compacted = () => {
      const state = backing.get(`mirrors/${space}/0`)!.entries.get(COMPACTED_KEY);
      return state ? Number(new TextDecoder().decode(state)) : 0;
    };
    // Twenty versions of ~240 KB: each fills a segment of its own, so a compaction leaves
    // about twenty, and the next one is due at twice that, past 32.
    for (let i = 0; i < 20; i++) {
      await node.records.put(space, 'app.big', { i, text: text(240_000, i) });
      await node.spaces.syncMirrors(space);
    }
    let n = 0;
    const small = async () => {
      await node.records.put(space, 'app.small', { n: n++ });
      await node.spaces.syncMirrors(space);
      return segments();
    };
    while ((await segments()) < COMPACT_MIN_SEGMENTS - 1) await small();
    expect(await small()).toBeLessThan(COMPACT_MIN_SEGMENTS); // the 32nd: compacted
    const left = compacted();
    expect(left).toBe(await segments());
    expect(left).toBeGreaterThan(COMPACT_MIN_SEGMENTS / 2);
    // From here every push adds one segment, with no compaction at 32, up to twice `left`.
    for (let count = left + 1; count < 2 * left; count++) expect(await small()).toBe(count);
    expect(await small()).toBeLessThan(2 * left); // the 2·left-th: compacted again
    expect(compacted()).toBe(await segments());
    expect((await idsInMirror(bucket, space)).size).toBe(
      (await node.spaces.status(space)).versions,
    );
    expect(errors).toEqual([]);
    await node.close();
  });

  it('reads the mirror:read: and mirror:known: entries once, when the mirror starts', async () => {
    const backing = new Map<string, Data>();
    const reads: Array<{ op: 'list' | 'get'; key: string }> = [];
    /** The node's stores, counting what the mirror state stores are asked. */
    const counting = (): StoreFactory => {
      const inner = fakeStores({ backing });
      return {
        open: async (path) => {
          const adapter = await inner.open(path);
          if (!path.startsWith('mirrors/')) return adapter;
          const counted: StorageAdapter = {
            ...adapter,
            list: (prefix) => {
              reads.push({ op: 'list', key: prefix });
              return adapter.list(prefix);
            },
            get: (key) => {
              reads.push({ op: 'get', key });
              return adapter.get(key);
            },
          };
          return counted;
        },
      };
    };
    const stateReads = () =>
      reads.filter((r) => r.key.startsWith(READ_PREFIX) || r.key.startsWith(KNOWN_PREFIX));
    const bucket = fakeBlobStore();
    const other = await mirroredNode([bucket]);
    const node = await createNode({ stores: counting(), mirrors: [bucket] });
    const { id: space } = await node.spaces.create();
    await node.spaces.setRole(space, other.node.did, 'writer');
    await other.node.spaces.join(await node.spaces.share(space, other.node.did));
    await node.spaces.syncMirrors(space);
    // A new writer clears what an old state left before it reads its own: all at start.
    const atStart = stateReads().length;
    expect(stateReads().every((r) => r.op === 'list')).toBe(true);
    // Several pushes and pulls, with segments of another writer to read among them.
    for (let i = 0; i < 4; i++) {
      await node.records.put(space, 'app.note', { i });
      await other.node.records.put(space, 'app.note', { other: i });
      await other.node.spaces.syncMirrors(space);
      await node.spaces.syncMirrors(space);
    }
    expect((await node.records.list(space, 'app.note')).length).toBe(8);
    // Nothing read of them since.
    expect(stateReads()).toHaveLength(atStart);
    await node.close();
    // A restart of a writer with its state reads each prefix once, and nothing more.
    reads.length = 0;
    const again = await createNode({ stores: counting(), mirrors: [bucket] });
    await again.spaces.open(space);
    await again.spaces.syncMirrors(space);
    await again.records.put(space, 'app.note', { after: 1 });
    await again.spaces.syncMirrors(space);
    expect(stateReads()).toEqual([
      { op: 'list', key: READ_PREFIX },
      { op: 'list', key: KNOWN_PREFIX },
    ]);
    await again.close();
    await other.node.close();
  });
});
