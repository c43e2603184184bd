// One test per rule of "What a device keeps": ahead, keep, never dropping what was added here
// or is being read, files larger than keep, dropped files not refetched unread, 'all', and
// files of records that don't stand.
import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES } from '../../src/files/chunks.js';
import { DEFAULT_FILE_LIMITS } from '../../src/files/limits.js';
import type { FileSource } from '../../src/files/source.js';
import type { MincaNode } from '../../src/node.js';
import { nodeFixture, sharedSpace } from '../sync-helpers.js';
import { advance, drive, within } from './clock.js';
import { asks, level, link, same, sample, whole } from './files-helpers.js';

const { make } = nodeFixture({ fakeClock: true });

/** Sealed bytes of `n` full chunks. */
const chunks = (n: number) => n * (CHUNK_BYTES + 40);
const holds = async (n: MincaNode, s: string, id: string) => (await whole(n, s)).has(id);
const settle = () => advance(4_000, 50);

/** A writer A and a reader B sharing a space, connected. */
async function pair(config = {}) {
  const [a, b] = [await make(), await make(config)];
  const space = await sharedSpace(a, [b]);
  const l = link(a, b);
  await level(a, b, space);
  return { a, b, space, ...l };
}

async function post(a: MincaNode, space: string, bytes: Uint8Array) {
  const ref = await drive(a.records.addFile(space, bytes));
  await a.records.put(space, 'app.post', { ref });
  return ref;
}

describe('what a device keeps', () => {
  it('fetches unread only files up to ahead, 5 MiB by default', async () => {
    expect(DEFAULT_FILE_LIMITS).toEqual({ ahead: 5 * 1024 * 1024, keep: 256 * 1024 * 1024 });
    const { a, b, space } = await pair();
    const fits = await post(a, space, sample(5 * 1024 * 1024, 1));
    const over = await post(a, space, sample(5 * 1024 * 1024 + 1, 2));
    await level(a, b, space);
    await within(10_000, () => holds(b, space, fits.$file), 'the 5 MiB file ahead');
    await settle();
    expect(await holds(b, space, over.$file)).toBe(false);
    // Reading it fetches it.
    expect(same(await drive(b.records.readFile(space, over)), sample(5 * 1024 * 1024 + 1, 2))).toBe(
      true,
    );
  });

  it('past keep drops the files used longest ago, down to 90%', async () => {
    const { a, b, space } = await pair();
    await b.setFileLimits({ ahead: Number.POSITIVE_INFINITY, keep: chunks(7) });
    const [f1, f2, f3] = [
      await post(a, space, sample(3 * CHUNK_BYTES, 1)),
      await post(a, space, sample(3 * CHUNK_BYTES, 2)),
      await post(a, space, sample(3 * CHUNK_BYTES, 3)),
    ];
    await level(a, b, space);
    // Two fit under keep (waited for in fake time: a busy machine fetches slower); the third is
    // not fetched ahead past it.
    const heldCount = async () => {
      const now = await whole(b, space);
      return [f1, f2, f3].filter((f) => now.has(f.$file)).length;
    };
    await within(30_000, async () => (await heldCount()) >= 2, 'two files fetched ahead');
    await settle();
    const held = await whole(b, space);
    expect([f1, f2, f3].filter((f) => held.has(f.$file)).length).toBe(2);
    const [first, second] = [f1, f2, f3].filter((f) => held.has(f.$file)) as [typeof f1, typeof f1];
    const third = [f1, f2, f3].find((f) => !held.has(f.$file))!;
    await advance(1_000);
    await drive(b.records.readFile(space, first)); // now used most recently
    await advance(1_000);
    await drive(b.records.readFile(space, third)); // 9 chunks: over keep
    await settle();
    const after = await whole(b, space);
    expect(after.has(first.$file)).toBe(true);
    expect(after.has(third.$file)).toBe(true);
    expect(after.has(second.$file)).toBe(false);
  });

  it('drops a file never fetched whole first', async () => {
    const { a, b, space, peerOfA } = await pair();
    await b.setFileLimits({ ahead: Number.POSITIVE_INFINITY, keep: chunks(4) });
    const w = await post(a, space, sample(3 * CHUNK_BYTES, 1));
    await level(a, b, space);
    await within(5_000, () => holds(b, space, w.$file), 'the whole file');
    // A partial file: its list and first chunk come from a source, the rest from nobody.
    const partial = sample(2 * CHUNK_BYTES, 9);
    const ref = await a.records.addFile(space, partial);
    const list = (await a.files.list(space, ref.$file))!;
    const chunk0 = (await a.files.chunk(space, ref.$file, 0))!;
    const source: FileSource = {
      name: 'half',
      list: async () => list,
      chunk: async (_id, n) => (n === 0 ? chunk0 : null),
    };
    b.files.addSources(() => [source]);
    await b.setFileLimits({ ahead: 0 });
    await a.records.put(space, 'app.post', { ref });
    await level(a, b, space);
    peerOfA.close(); // A goes away: only the half source is left
    await advance(50);
    const controller = new AbortController();
    const read = b.records.readFile(space, ref, { signal: controller.signal });
    read.catch(() => undefined);
    // The first chunk comes from the half source (checked off the main thread: give it time).
    await within(
      5_000,
      async () => (await b.files.chunk(space, ref.$file, 0)) !== undefined,
      'a chunk',
    );
    controller.abort();
    await expect(read).rejects.toMatchObject({ code: 'aborted' });
    expect(await b.files.chunk(space, ref.$file, 0)).toBeDefined();
    await b.setFileLimits({ keep: chunks(3.5) });
    await settle();
    expect(await holds(b, space, w.$file)).toBe(true);
    expect(await b.files.chunk(space, ref.$file, 0)).toBeUndefined();
  });

  it('never drops a file added here, or one being read', async () => {
    const { a, b, space, peerOfA } = await pair();
    await b.setFileLimits({ ahead: 0 });
    const mine = await post(a, space, sample(3 * CHUNK_BYTES, 1));
    await a.setFileLimits({ keep: 0 });
    await settle();
    expect(await holds(a, space, mine.$file)).toBe(true);
    // B reads through a source that has the first chunk only, until told otherwise.
    const list = (await a.files.list(space, mine.$file))!;
    const held = await Promise.all([0, 1, 2].map((n) => a.files.chunk(space, mine.$file, n)));
    let all = false;
    const source: FileSource = {
      name: 'partial',
      list: async () => list,
      chunk: async (_id, n) => (all || n === 0 ? (held[n] ?? null) : null),
    };
    await level(a, b, space);
    peerOfA.close();
    b.files.addSources(() => [source]);
    const read = b.records.readFile(space, mine);
    read.catch(() => undefined);
    await within(
      1_000,
      async () => (await b.files.chunk(space, mine.$file, 0)) !== undefined,
      'c0',
    );
    await b.setFileLimits({ keep: 0 });
    await advance(3_000, 50);
    // Being read: kept, though it is past keep.
    expect(await b.files.chunk(space, mine.$file, 0)).toBeDefined();
    all = true;
    expect(same(await drive(read), sample(3 * CHUNK_BYTES, 1))).toBe(true);
  });

  it('drops a file larger than keep once read, and fetches it again at the next read', async () => {
    const { a, b, space, fromB } = await pair();
    await b.setFileLimits({ ahead: Number.POSITIVE_INFINITY, keep: chunks(2) });
    const big = await post(a, space, sample(3 * CHUNK_BYTES, 4));
    await level(a, b, space);
    await settle();
    expect(await holds(b, space, big.$file)).toBe(false);
    expect(same(await drive(b.records.readFile(space, big)), sample(3 * CHUNK_BYTES, 4))).toBe(
      true,
    );
    expect(await holds(b, space, big.$file)).toBe(false);
    const before = asks(fromB);
    expect(same(await drive(b.records.readFile(space, big)), sample(3 * CHUNK_BYTES, 4))).toBe(
      true,
    );
    expect(asks(fromB)).toBeGreaterThan(before);
  });

  it('does not fetch a dropped whole file again unread while named; reading does', async () => {
    const { a, b, space, fromB } = await pair();
    const ref = await post(a, space, sample(2 * CHUNK_BYTES, 5));
    await level(a, b, space);
    await within(5_000, () => holds(b, space, ref.$file), 'fetch ahead');
    await b.setFileLimits({ keep: 0 });
    await within(3_000, async () => !(await holds(b, space, ref.$file)), 'the drop');
    await b.setFileLimits({ keep: Number.POSITIVE_INFINITY });
    const before = asks(fromB);
    await a.records.put(space, 'app.post', { again: ref });
    await level(a, b, space);
    await settle();
    expect(asks(fromB)).toBe(before);
    expect(await holds(b, space, ref.$file)).toBe(false);
    expect(same(await drive(b.records.readFile(space, ref)), sample(2 * CHUNK_BYTES, 5))).toBe(
      true,
    );
    expect(await holds(b, space, ref.$file)).toBe(true);
  });

  it("fetchFiles: 'all' fetches and keeps every file whatever the limits", async () => {
    const { a, b, space } = await pair({ fetchFiles: 'all' });
    await b.setFileLimits({ ahead: 0, keep: 0 });
    const big = await post(a, space, sample(6 * 1024 * 1024, 6));
    await level(a, b, space);
    await within(10_000, () => holds(b, space, big.$file), "'all' fetching past ahead");
    await settle();
    expect(await holds(b, space, big.$file)).toBe(true);
  });

  it('Infinity keeps everything', async () => {
    const { a, b, space } = await pair();
    await b.setFileLimits({ ahead: Number.POSITIVE_INFINITY, keep: Number.POSITIVE_INFINITY });
    const big = await post(a, space, sample(6 * 1024 * 1024, 7));
    await level(a, b, space);
    await within(10_000, () => holds(b, space, big.$file), 'fetching past 5 MiB');
    await expect(b.setFileLimits({ keep: -1 })).rejects.toBeInstanceOf(RangeError);
  });

  it("does not keep files of records that don't stand", async () => {
    const [a, b, c] = [await make(), await make(), await make()];
    const space = await sharedSpace(a, [b, c]);
    link(a, b);
    link(a, c);
    link(b, c);
    const ref = await post(b, space, sample(1000, 8));
    await level(a, c, space);
    await within(5_000, () => holds(c, space, ref.$file), 'c fetching ahead');
    // B may no longer write: its record stops standing, and its file goes.
    await a.spaces.setRole(space, b.did, 'reader');
    await level(a, c, space);
    await within(5_000, async () => !(await holds(c, space, ref.$file)), 'the drop');
    await expect(drive(c.records.readFile(space, ref))).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});
