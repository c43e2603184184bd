import { afterEach, describe, expect, it, vi } from 'vitest';
import { toHex } from '../../src/bytes.ts';
import { randomId } from '../../src/ids.ts';
import { SigningKey } from '../../src/keys.ts';
import { mirrorStatePath, WRITER_KEY } from '../../src/mirror/mirror-state.ts';
import { encodeSegment, parseSegmentKey } from '../../src/mirror/segment.ts';
import { createVersion } from '../../src/version.ts';
import { fakeBlobStore } from '../fake-adapter.ts';
import { fingerprint } from '../sync-helpers.ts';
import { idsInMirror, mirroredNode, twoDevices } from './mirror-helpers.ts';

/**
 * Lets real work (WebCrypto, which no fake timer runs) finish: true once `check` is, false after
 * `ms` of real time. Date is not faked in these tests.
 */
async function settled(check: () => Promise<boolean>, ms = 2000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setImmediate(r));
  }
  return check();
}

afterEach(() => {
  vi.useRealTimers();
});

describe('mirrors', () => {
  it('two devices never online together converge through one blob store', async () => {
    const { a, b, space, ticket, bucket } = await twoDevices();
    const post = await a.node.records.put(space, 'app.post', { text: 'from a' });
    await a.node.close(); // pushes on close
    await b.node.spaces.join(ticket);
    await b.node.spaces.syncMirrors(space);
    expect((await b.node.records.get(space, 'app.post', post.id))?.body).toEqual({
      text: 'from a',
    });
    await b.node.records.put(space, 'app.post', { text: 'from b' });
    const printB = await fingerprint(b.node, space);
    await b.node.close();

    const again = await mirroredNode([bucket], a.backing);
    await again.node.spaces.open(space);
    await again.node.spaces.syncMirrors(space);
    expect(await fingerprint(again.node, space)).toBe(printB);
    expect((await again.node.records.list(space, 'app.post')).map((r) => r.body)).toEqual(
      expect.arrayContaining([{ text: 'from a' }, { text: 'from b' }]),
    );
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    await again.node.close();
  });

  it('pushes 5 s after the first change, not before, and once for several changes', async () => {
    vi.useFakeTimers();
    const bucket = fakeBlobStore();
    const { node } = await mirroredNode([bucket]);
    const { id: space } = await node.spaces.create();
    await vi.advanceTimersByTimeAsync(10); // the push of the space's first version, at open
    const before = (await bucket.list(`${space}/`)).length;
    await node.records.put(space, 'app.post', { n: 1 });
    await vi.advanceTimersByTimeAsync(3000);
    await node.records.put(space, 'app.post', { n: 2 });
    await vi.advanceTimersByTimeAsync(1990);
    expect((await bucket.list(`${space}/`)).length).toBe(before);
    await vi.advanceTimersByTimeAsync(20);
    expect((await bucket.list(`${space}/`)).length).toBe(before + 1);
    await node.close();
  });

  it('a data folder’s 1 s push delay and a pull every period', async () => {
    // setImmediate stays real, to wait for WebCrypto's checks, which no fake timer runs.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const bucket = fakeBlobStore();
    const config = { store: bucket, pushDelayMs: 1000, pullIntervalMs: 2000 };
    const { a, b, space, ticket } = await twoDevices(bucket, config);
    await b.node.spaces.join(ticket);
    await vi.advanceTimersByTimeAsync(100);
    const post = await a.node.records.put(space, 'app.post', { n: 1 });
    const arrived = async () =>
      (await b.node.records.get(space, 'app.post', post.id)) !== undefined;
    await vi.advanceTimersByTimeAsync(1000); // a pushes
    await vi.advanceTimersByTimeAsync(850);
    expect(await settled(arrived, 300)).toBe(false); // b's next pull is at 2 s
    await vi.advanceTimersByTimeAsync(100);
    expect(await settled(arrived, 10_000)).toBe(true);
    await a.node.close();
    await b.node.close();
  });

  it('skips damaged and hostile segments with a typed error, and still pulls the rest', async () => {
    const { a, b, space, ticket, bucket } = await twoDevices();
    await a.node.records.put(space, 'app.post', { good: true });
    await a.node.spaces.syncMirrors(space);
    const good = await a.node.spaces.status(space);

    const writer = randomId();
    const stranger = SigningKey.generate();
    const otherSpace = randomId();
    const key = new Uint8Array(32);
    const draft = (s: string) => ({
      space: s,
      collection: 'app.post',
      record: randomId(),
      supersedes: [],
      timestamp: Date.now(),
      files: [],
      body: { bad: true },
    });
    // Not hashing to its name (a half-copied file).
    const half = encodeSegment({ space, writer, counter: 0, versions: [new Uint8Array([1, 2])] });
    await bucket.put(half.key, half.bytes.slice(0, half.bytes.length - 1));
    // A version of another space.
    const foreign = encodeSegment({
      space,
      writer,
      counter: 1,
      versions: [(await createVersion(draft(otherSpace), key, stranger)).bytes],
    });
    await bucket.put(foreign.key, foreign.bytes);
    // A version whose signature does not verify.
    const forged = (await createVersion(draft(space), key, stranger)).bytes.slice();
    forged[forged.length - 1]! ^= 1;
    const bad = encodeSegment({ space, writer, counter: 2, versions: [forged] });
    await bucket.put(bad.key, bad.bytes);
    // A well-formed version by someone who may not write.
    const unauthorized = encodeSegment({
      space,
      writer,
      counter: 3,
      versions: [(await createVersion(draft(space), ticket.key, stranger)).bytes],
    });
    await bucket.put(unauthorized.key, unauthorized.bytes);
    // A version that does not even decode, in a segment that is whole.
    const garbled = encodeSegment({
      space,
      writer,
      counter: 5,
      versions: [new Uint8Array([0xff])],
    });
    await bucket.put(garbled.key, garbled.bytes);
    // A misplaced segment: another writer's bytes under this writer's name.
    const moved = encodeSegment({ space, writer: randomId(), counter: 4, versions: [forged] });
    await bucket.put(`${space}/${writer}/${moved.key.split('/')[2]}`, moved.bytes);

    await b.node.spaces.join(ticket);
    await b.node.spaces.syncMirrors(space);
    expect(await fingerprint(b.node, space)).toBe(good.fingerprint);
    expect((await b.node.records.list(space, 'app.post')).map((r) => r.body)).toEqual([
      { good: true },
    ]);
    const codes = b.errors.map((e) => [e.where.segment, e.error.code]);
    expect(codes).toEqual(
      expect.arrayContaining([
        [half.key, 'malformed'],
        [foreign.key, 'invalid_version'],
        [bad.key, 'invalid_version'],
        [unauthorized.key, 'not_authorized'],
        [garbled.key, 'invalid_version'],
        [`${space}/${writer}/${moved.key.split('/')[2]}`, 'malformed'],
      ]),
    );
    expect(b.errors.every((e) => e.error.name === 'MincaError')).toBe(true);
    // Told once, not at every pull.
    const told = b.errors.length;
    await b.node.spaces.syncMirrors(space);
    expect(b.errors.length).toBe(told);
    await a.node.close();
    await b.node.close();
  });

  it('a restarted writer never reuses a segment name; one whose state was lost gets a new id', async () => {
    const bucket = fakeBlobStore();
    const first = await mirroredNode([bucket]);
    const { id: space } = await first.node.spaces.create();
    const names = new Set<string>();
    const writers = new Set<string>();
    let node = first.node;
    for (let round = 0; round < 4; round++) {
      await node.records.put(space, 'app.post', { round });
      await node.spaces.syncMirrors(space);
      await node.close();
      if (round === 2) {
        // An old copy of the state: its counter is behind what the mirror shows.
        const state = first.backing.get(mirrorStatePath(space, 0))!;
        state.entries.set('mirror:counter', new TextEncoder().encode('0'));
      }
      node = (await mirroredNode([bucket], first.backing)).node;
      await node.spaces.open(space);
    }
    await node.spaces.syncMirrors(space);
    for (const key of await bucket.list(`${space}/`)) {
      const name = parseSegmentKey(key)!;
      writers.add(name.writer);
      names.add(`${name.writer}/${name.counter}`);
    }
    expect(writers.size).toBe(1);
    expect(names.size).toBe((await bucket.list(`${space}/`)).length);

    // The state is lost: a new writer id, and nothing of the old writer's is touched.
    await node.records.put(space, 'app.post', { after: 'loss' });
    await node.close();
    const before = await bucket.list(`${space}/`);
    const snapshot = await Promise.all(before.map((k) => bucket.get(k)));
    first.backing.delete(mirrorStatePath(space, 0));
    const fresh = await mirroredNode([bucket], first.backing);
    await fresh.node.spaces.open(space);
    await fresh.node.spaces.syncMirrors(space);
    const state = first.backing.get(mirrorStatePath(space, 0))!;
    const newWriter = new TextDecoder().decode(state.entries.get(WRITER_KEY));
    expect(writers.has(newWriter)).toBe(false);
    const after = await bucket.list(`${space}/`);
    expect(after).toEqual(expect.arrayContaining(before));
    for (const [i, key] of before.entries())
      expect(toHex((await bucket.get(key))!)).toBe(toHex(snapshot[i]!));
    // It pushed only what the old writer's segments lacked.
    const added = after.filter((k) => !before.includes(k));
    expect(added.every((k) => parseSegmentKey(k)!.writer === newWriter)).toBe(true);
    expect(added.length).toBe(0); // the mirror held it all
    await fresh.node.close();
  });

  it('compacts once a writer has 32 segments, and a newcomer still gets everything', async () => {
    const bucket = fakeBlobStore();
    const { node, errors } = await mirroredNode([bucket]);
    const { id: space } = await node.spaces.create();
    await node.spaces.syncMirrors(space);
    const segments = async () => (await node.spaces.status(space)).mirrors[0]!.segments;
    for (let i = 0; (await segments()) < 31; i++) {
      await node.records.put(space, 'app.post', { i });
      await node.spaces.syncMirrors(space);
    }
    expect((await bucket.list(`${space}/`)).length).toBe(31);
    await node.records.put(space, 'app.post', { i: 'last' });
    await node.spaces.syncMirrors(space); // the 32nd: compaction
    const status = (await node.spaces.status(space)).mirrors[0]!;
    expect(status.segments).toBe(1);
    expect((await bucket.list(`${space}/`)).length).toBe(1);
    const held = (await node.spaces.status(space)).versions;
    expect((await idsInMirror(bucket, space)).size).toBe(held);
    // The next compaction waits for 32 again (twice 1 is less).
    for (let i = 0; i < 30; i++) {
      await node.records.put(space, 'app.post', { j: i });
      await node.spaces.syncMirrors(space);
    }
    expect((await node.spaces.status(space)).mirrors[0]!.segments).toBe(31);
    const print = await fingerprint(node, space);
    const ticket = await node.spaces.share(space, node.did);
    await node.close();
    const reader = await mirroredNode([bucket]);
    await reader.node.spaces.join(ticket);
    await reader.node.spaces.syncMirrors(space);
    expect(await fingerprint(reader.node, space)).toBe(print);
    expect(errors).toEqual([]);
    await reader.node.close();
  });
});

describe('mirrors that fail', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('tries a failed push again, and the pull at open until one succeeds', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const inner = fakeBlobStore();
    let down = true;
    const flaky = {
      get: (k: string) => (down ? Promise.reject(new Error('offline')) : inner.get(k)),
      put: (k: string, b: Uint8Array) =>
        down ? Promise.reject(new Error('offline')) : inner.put(k, b),
      delete: (k: string) => (down ? Promise.reject(new Error('offline')) : inner.delete(k)),
      list: (p: string) => (down ? Promise.reject(new Error('offline')) : inner.list(p)),
    };
    const a = await mirroredNode([inner]);
    const { id: space } = await a.node.spaces.create();
    const post = await a.node.records.put(space, 'app.post', { n: 1 });
    const ticketFor = async (did: string) => {
      await a.node.spaces.setRole(space, did, 'writer');
      return a.node.spaces.share(space, did);
    };
    const b = await mirroredNode([flaky]);
    await b.node.spaces.join(await ticketFor(b.node.did));
    await a.node.close();
    await vi.advanceTimersByTimeAsync(10);
    expect(b.errors.length).toBeGreaterThan(0);
    expect(b.errors[0]!.error.code).toBe('storage');
    const mine = await b.node.records.put(space, 'app.post', { from: 'b' });
    await vi.advanceTimersByTimeAsync(5000); // the push fails too
    expect((await b.node.spaces.status(space)).mirrors[0]!.error).toMatch(/failed/);
    down = false;
    await vi.advanceTimersByTimeAsync(5000); // pushed now
    expect(
      await settled(async () => (await idsInMirror(inner, space)).has(mine.version), 10_000),
    ).toBe(true);
    await vi.advanceTimersByTimeAsync(20_000); // the pull at open, again
    expect(
      await settled(
        async () => (await b.node.records.get(space, 'app.post', post.id)) !== undefined,
        10_000,
      ),
    ).toBe(true);
    expect((await b.node.spaces.status(space)).mirrors[0]!.error).toBeUndefined();
    await b.node.close();
  });
});

describe('mirrors and membership', () => {
  it('writes whose grant is in a segment not listed yet come in at a later pull', async () => {
    const { a, b, space, ticket: ticketB, bucket } = await twoDevices();
    await a.node.spaces.syncMirrors(space); // a's segment holds b's grant
    await b.node.spaces.join(ticketB);
    await b.node.spaces.syncMirrors(space); // b knows the grant is there: its segment lacks it
    const post = await b.node.records.put(space, 'app.post', { by: 'b' });
    await b.node.spaces.syncMirrors(space);

    // c's listing misses a's segments at first, as an eventually consistent store may.
    let hideA = true;
    const writerA = (await a.node.spaces.status(space)).mirrors[0]!.writer;
    const lagging = {
      ...bucket,
      list: async (prefix: string) =>
        (await bucket.list(prefix)).filter((k) => !(hideA && k.includes(`/${writerA}/`))),
    };
    const c = await mirroredNode([lagging]);
    await a.node.spaces.setRole(space, c.node.did, 'reader');
    const ticketC = await a.node.spaces.share(space, c.node.did);
    await c.node.spaces.join(ticketC); // the ticket holds c's grant only, not b's
    await c.node.spaces.syncMirrors(space);
    expect(await c.node.records.get(space, 'app.post', post.id)).toBeUndefined();
    expect(c.errors.map((e) => e.error.code)).toEqual(['not_authorized']);
    hideA = false;
    await c.node.spaces.syncMirrors(space);
    expect((await c.node.records.get(space, 'app.post', post.id))?.body).toEqual({ by: 'b' });
    for (const n of [a, b, c]) await n.node.close();
  });
});
