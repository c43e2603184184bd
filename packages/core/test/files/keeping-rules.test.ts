// Rules of "What a device keeps" and "How files are served and stored", each isolated: past
// keep, down to exactly 90%; a file not whole goes first even when used more recently; a file
// being fetched is never dropped; `own` is 0 once a record names the file; peers are asked
// before mirrors. Through the node's API, on a fake clock, with stores a restart can reopen.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decodeStrict } from '../../src/encoding.js';
import { CHUNK_BYTES, sealedSize } from '../../src/files/chunks.js';
import { KEEP_DOWN_TO } from '../../src/files/limits.js';
import type { FileSource } from '../../src/files/source.js';
import { createNode, type MincaNode } from '../../src/node.js';
import { type Data, fakeStores } from '../fake-adapter.js';
import { converged, sharedSpace } from '../sync-helpers.js';
import { advance, drive, useFakeClock, within } from './clock.js';
import { link, nodeWith, same, sample, whole } from './files-helpers.js';

let nodes: MincaNode[] = [];
const track = (node: MincaNode) => {
  nodes.push(node);
  return node;
};
beforeEach(() => useFakeClock());
afterEach(async () => {
  for (const n of nodes) await n.close().catch(() => undefined);
  nodes = [];
  vi.useRealTimers();
});

const fingerprint = async (n: MincaNode, s: string) => (await n.spaces.status(s)).fingerprint;
const level = (a: MincaNode, b: MincaNode, s: string) =>
  within(20_000, async () => (await fingerprint(a, s)) === (await fingerprint(b, s)), 'sync');
const holds = async (n: MincaNode, s: string, id: string) => (await whole(n, s)).has(id);
const settle = () => advance(4_000, 50);

async function post(a: MincaNode, space: string, bytes: Uint8Array) {
  const ref = await drive(a.records.addFile(space, bytes));
  await a.records.put(space, 'app.post', { ref });
  return ref;
}

describe('what a device keeps, rule by rule', () => {
  it('past keep, drops the files used longest ago down to exactly 90% of it', async () => {
    expect(KEEP_DOWN_TO).toBe(0.9);
    const a = track(await nodeWith());
    const b = track(await nodeWith());
    const space = await sharedSpace(a, [b]);
    link(a, b);
    await b.setFileLimits({ ahead: Number.POSITIVE_INFINITY, keep: Number.POSITIVE_INFINITY });
    const refs = [];
    for (let i = 0; i < 11; i++) refs.push(await post(a, space, sample(1_000, i + 1)));
    await level(a, b, space);
    await within(10_000, async () => (await whole(b, space)).size === 11, 'all 11 ahead');
    // Each read in turn, a second apart: refs[0] is the one used longest ago.
    for (const ref of refs) {
      await advance(1_000);
      await drive(b.records.readFile(space, ref));
    }
    // 11 files of one size over a keep of 10: down to 90% is 9 of them, exactly.
    const each = sealedSize(1_000);
    await b.setFileLimits({ keep: 10 * each });
    await settle();
    const kept = await whole(b, space);
    expect(kept.size).toBe(9);
    expect(kept.has(refs[0]!.$file)).toBe(false);
    expect(kept.has(refs[1]!.$file)).toBe(false);
    for (const ref of refs.slice(2)) expect(kept.has(ref.$file)).toBe(true);
  });

  it('drops a file not whole first, even one used more recently than a whole one', async () => {
    const backing = new Map<string, Data>();
    const a = track(await nodeWith());
    let b = track(await createNode({ stores: fakeStores({ backing }) }));
    const space = await sharedSpace(a, [b]);
    const l = link(a, b);
    await b.setFileLimits({ ahead: Number.POSITIVE_INFINITY });
    const older = await post(a, space, sample(CHUNK_BYTES, 1)); // one chunk
    const newer = await post(a, space, sample(3 * CHUNK_BYTES, 2)); // three chunks
    await level(a, b, space);
    await within(10_000, async () => (await whole(b, space)).size === 2, 'both ahead');
    await advance(5_000);
    await drive(b.records.readFile(space, newer)); // newer is now the one used last
    l.peerOfA.close();
    await b.close();
    // B's disk lost one of newer's chunks: it is not whole, though used last.
    const entries = backing.get(`spaces/${space}`)!.entries;
    expect(entries.delete(`f/${newer.$file}/2`)).toBe(true);
    b = track(await createNode({ stores: fakeStores({ backing }) }));
    await b.spaces.open(space);
    expect(await holds(b, space, older.$file)).toBe(true);
    expect(await b.files.chunk(space, newer.$file, 0)).toBeDefined();
    // Held: 1 + 2 chunks over a keep of 2.5: dropping the partial one alone is enough.
    const chunk = sealedSize(CHUNK_BYTES);
    await b.setFileLimits({ ahead: 0, keep: 2.5 * chunk });
    await settle();
    expect(await holds(b, space, older.$file)).toBe(true);
    expect(await b.files.chunk(space, newer.$file, 0)).toBeUndefined();
    expect(await b.files.chunk(space, newer.$file, 1)).toBeUndefined();
  });

  it('never drops a file while it is being fetched ahead; past keep it goes once fetched', async () => {
    const a = track(await nodeWith());
    const b = track(await nodeWith());
    const space = await sharedSpace(a, [b]);
    const l = link(a, b);
    await b.setFileLimits({ ahead: 0 });
    // Six chunks: the first ask (four) is answered, the second stalls until we let it go.
    const bytes = sample(6 * CHUNK_BYTES, 3);
    const ref = await post(a, space, bytes);
    await level(a, b, space);
    const list = (await a.files.list(space, ref.$file))!;
    const chunks = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((n) => a.files.chunk(space, ref.$file, n)),
    );
    let release: () => void = () => undefined;
    const stalled = new Promise<void>((r) => {
      release = r;
    });
    const slow: FileSource = {
      name: 'slow',
      list: async () => list,
      chunk: async (_id, n) => {
        if (n >= 4) await stalled;
        return chunks[n] ?? null;
      },
    };
    l.peerOfA.close(); // only the slow source is left
    b.files.addSources(() => [slow]);
    await b.setFileLimits({ ahead: Number.POSITIVE_INFINITY });
    await within(
      5_000,
      async () => (await b.files.chunk(space, ref.$file, 3)) !== undefined,
      '4 chunks',
    );
    // Being fetched: kept, however far past keep.
    await b.setFileLimits({ keep: 0 });
    await settle();
    for (const n of [0, 1, 2, 3]) expect(await b.files.chunk(space, ref.$file, n)).toBeDefined();
    release();
    await settle();
    // Fetched now, and past keep: dropped.
    expect(await holds(b, space, ref.$file)).toBe(false);
    expect(await b.files.chunk(space, ref.$file, 0)).toBeUndefined();
  });

  it('sets own to 0 once a record names the file; unnamed again, it goes at once', async () => {
    const backing = new Map<string, Data>();
    const a = track(await createNode({ stores: fakeStores({ backing }) }));
    const space = (await a.spaces.create()).id;
    const added = Date.now();
    const ref = await drive(a.records.addFile(space, sample(1_000, 4)));
    const own = () => {
      const bytes = backing.get(`spaces/${space}`)!.entries.get(`f/${ref.$file}/own`);
      return bytes && decodeStrict(bytes);
    };
    expect(own()).toBe(added);
    const record = await a.records.put(space, 'app.post', { ref });
    await settle();
    expect(own()).toBe(0);
    // Named once, it no longer counts as just added: unnamed, it is dropped, not kept 24 h.
    await a.records.delete(space, 'app.post', record.id);
    await settle();
    expect(await holds(a, space, ref.$file)).toBe(false);
    expect(
      [...backing.get(`spaces/${space}`)!.entries.keys()].some((k) => k.includes(ref.$file)),
    ).toBe(false);
  });
});

describe('where a read fetches from', () => {
  it('asks connected peers first, and mirrors only after them', async () => {
    vi.useRealTimers();
    const events: string[] = [];
    const blobs = new Map<string, Uint8Array>();
    const bucket = {
      get: async (key: string) => {
        if (key.startsWith('files/')) events.push('mirror');
        return blobs.get(key)?.slice() ?? null;
      },
      put: async (key: string, bytes: Uint8Array) => void blobs.set(key, bytes.slice()),
      delete: async (key: string) => void blobs.delete(key),
      list: async (prefix: string) => [...blobs.keys()].filter((k) => k.startsWith(prefix)).sort(),
    };
    const a = track(await createNode({ stores: fakeStores(), mirrors: [bucket] }));
    const b = track(await createNode({ stores: fakeStores(), mirrors: [bucket] }));
    const c = track(await nodeWith());
    const space = await sharedSpace(a, [b, c]);
    for (const n of [b, c]) await n.setFileLimits({ ahead: 0 });
    const first = await a.records.addFile(space, sample(2 * CHUNK_BYTES, 5));
    await a.records.put(space, 'app.post', { first });
    const second = await a.records.addFile(space, sample(2 * CHUNK_BYTES, 6));
    await a.records.put(space, 'app.post', { second });
    await a.spaces.syncMirrors(space);
    await a.spaces.syncMirrors(space); // files go after the versions
    expect((await bucket.list(`files/${space}/`)).length).toBeGreaterThan(0);
    const ab = link(a, b, (m) => {
      if (m.t === 'fwant') events.push('peer');
      return m;
    });
    link(c, b, (m) => {
      if (m.t === 'fwant') events.push('peer');
      return m;
    });
    await converged([a, b, c], space);
    // A peer has it: the mirror is never asked.
    events.length = 0;
    expect(same(await b.records.readFile(space, first), sample(2 * CHUNK_BYTES, 5))).toBe(true);
    expect(events).toContain('peer');
    expect(events).not.toContain('mirror');
    // Only a peer without it (c) is connected: it is asked, then the mirror.
    ab.peerOfB.close();
    events.length = 0;
    expect(same(await b.records.readFile(space, second), sample(2 * CHUNK_BYTES, 6))).toBe(true);
    expect(events[0]).toBe('peer');
    expect(events).toContain('mirror');
    expect(events.indexOf('mirror')).toBeGreaterThan(events.indexOf('peer'));
  });
});
