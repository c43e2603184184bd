// addFile from a stream (spec 05 §16.6.4): every kind of stream gives the file bytes would, the
// chunks go under a temporary id and the file is whole in one write at the end, a stream that
// fails, lies about its size or is aborted leaves nothing, and an add cut short by a crash is
// dropped once nobody has said it runs for 10 minutes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHUNK_BYTES } from '../../src/files/chunks.js';
import { ADD_CUT_SHORT_MS } from '../../src/files/limits.js';
import { createNode, type MincaNode } from '../../src/node.js';
import { type Data, fakeStores } from '../fake-adapter.js';
import { connect, converged, sharedSpace } from '../sync-helpers.js';
import { advance, drive, useFakeClock, within } from './clock.js';
import { same, sample } from './files-helpers.js';

let nodes: MincaNode[] = [];
afterEach(async () => {
  for (const n of nodes) await n.close().catch(() => undefined);
  nodes = [];
  vi.useRealTimers();
});

async function nodeOn(backing = new Map<string, Data>()) {
  const node = await createNode({ stores: fakeStores({ backing }) });
  nodes.push(node);
  return node;
}

/** `bytes` in pieces of `size` (the last shorter). */
function* piecesOf(bytes: Uint8Array, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
}

function streamOf(bytes: Uint8Array, size: number, onCancel?: () => void) {
  const pieces = piecesOf(bytes, size);
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: onCancel,
  });
}

/** The `f/` entries of a space's store, as parts after `f/`. */
const fileEntries = (backing: Map<string, Data>, space: string) =>
  [...(backing.get(`spaces/${space}`)?.entries.keys() ?? [])]
    .filter((k) => k.startsWith('f/'))
    .map((k) => k.slice(2))
    .sort();

describe('addFile from a stream', () => {
  it('takes a ReadableStream, a Blob, an async iterable and pieces, each as bytes would be', async () => {
    const a = await nodeOn();
    const space = (await a.spaces.create()).id;
    // Sizes around the 16 chunks a stream without a size may hold before sealing.
    const sizes = [0, 1000, 16 * CHUNK_BYTES, 16 * CHUNK_BYTES + 1, 17 * CHUNK_BYTES + 5];
    for (const [i, size] of sizes.entries()) {
      const bytes = sample(size, i + 1);
      async function* iterable() {
        yield* piecesOf(bytes, 100_000);
      }
      const inputs = [
        streamOf(bytes, 65_536),
        new Blob([bytes], { type: 'video/mp4' }),
        iterable(),
        [...piecesOf(bytes, 300_000)],
      ];
      for (const input of inputs) {
        const progress: Array<{ done: number; total: number }> = [];
        const ref = await a.records.addFile(space, input, { onProgress: (p) => progress.push(p) });
        expect(ref.size).toBe(size);
        if (input instanceof Blob) expect(ref.mime).toBe('video/mp4');
        expect(progress.at(-1)).toEqual({ done: size, total: size });
        const dones = progress.map((p) => p.done);
        expect(dones).toEqual([...dones].sort((x, y) => x - y));
        await a.records.put(space, 'app.file', { ref });
        expect(same(await a.records.readFile(space, ref), bytes)).toBe(true);
      }
    }
  });

  it('writes chunks under a temporary id and the file at the end; it outlives a restart and is served', async () => {
    const backing = new Map<string, Data>();
    const a = await nodeOn(backing);
    const b = await nodeOn();
    const space = await sharedSpace(a, [b]);
    const bytes = sample(20 * CHUNK_BYTES + 7, 5);
    let seen: string[] = [];
    async function* watching() {
      for (const [i, piece] of [...piecesOf(bytes, CHUNK_BYTES)].entries()) {
        if (i === 19) seen = fileEntries(backing, space);
        yield piece;
      }
    }
    const ref = await a.records.addFile(space, watching());
    // Mid-add: chunks 0–15 under the temporary id, beside `adding`; nothing under a file id.
    const tmp = seen[0]!.split('/')[0]!;
    expect(seen).toEqual(
      ['adding', ...Array.from({ length: 16 }, (_, n) => String(n))]
        .map((p) => `${tmp}/${p}`)
        .sort(),
    );
    const chunks = Array.from({ length: 21 }, (_, n) => `${tmp}/${n}`);
    expect(fileEntries(backing, space)).toEqual(
      [...chunks, `${ref.$file}/at`, `${ref.$file}/list`, `${ref.$file}/own`].sort(),
    );
    await a.records.put(space, 'app.file', { ref });
    await a.close();
    nodes.splice(nodes.indexOf(a), 1);
    const again = await nodeOn(backing);
    expect(await again.files.whole(space)).toEqual([ref.$file]);
    expect(same(await again.records.readFile(space, ref), bytes)).toBe(true);
    connect(again, b);
    await converged([again, b], space);
    expect(same(await b.records.readFile(space, ref), bytes)).toBe(true);
  });

  it('a stream that lies about its size, fails, gives no bytes or is aborted leaves nothing', async () => {
    const backing = new Map<string, Data>();
    const a = await nodeOn(backing);
    const space = (await a.spaces.create()).id;
    const bytes = sample(3 * CHUNK_BYTES, 2);
    await expect(
      a.records.addFile(space, streamOf(bytes, 50_000), { size: bytes.length + 1 }),
    ).rejects.toMatchObject({ code: 'invalid_input', message: /not the/ });
    let cancelled = 0;
    await expect(
      a.records.addFile(
        space,
        streamOf(bytes, 50_000, () => cancelled++),
        { size: CHUNK_BYTES + 1 },
      ),
    ).rejects.toMatchObject({ code: 'invalid_input', message: /more than/ });
    expect(cancelled).toBe(1);
    async function* failing() {
      yield* piecesOf(bytes.subarray(0, 2 * CHUNK_BYTES), 50_000);
      throw new Error('the disk went away');
    }
    await expect(a.records.addFile(space, failing())).rejects.toThrow('the disk went away');
    await expect(a.records.addFile(space, ['not bytes'] as never)).rejects.toThrow(TypeError);
    await expect(a.records.addFile(space, 42 as never)).rejects.toThrow(TypeError);
    await expect(a.records.addFile(space, [bytes], { size: -1 })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    // Aborted while the stream holds back: rejected at once, the stream cancelled.
    const controller = new AbortController();
    let given = 0;
    const stalled = new ReadableStream<Uint8Array>({
      pull(c) {
        if (given++ < 40) c.enqueue(bytes.subarray(0, CHUNK_BYTES));
        else return new Promise(() => undefined); // holds back for ever
      },
      cancel: () => void cancelled++,
    });
    const adding = a.records.addFile(space, stalled, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 200));
    controller.abort();
    await expect(adding).rejects.toMatchObject({ code: 'aborted' });
    expect(cancelled).toBe(2);
    expect(fileEntries(backing, space)).toEqual([]);
  });

  it('drops a file added from a stream entirely, temporary id and all, once nothing names it', async () => {
    useFakeClock();
    const backing = new Map<string, Data>();
    const a = await drive(nodeOn(backing));
    const space = (await drive(a.spaces.create())).id;
    const bytes = sample(3 * CHUNK_BYTES + 1, 8);
    const ref = await drive(a.records.addFile(space, [bytes]));
    const post = await drive(a.records.put(space, 'app.file', { ref }));
    await advance(5_000, 100); // a pass: named now, it follows records
    expect(fileEntries(backing, space)).toHaveLength(7); // 4 chunks, at, list, own
    await drive(a.records.delete(space, 'app.file', post.id));
    await within(10_000, () => fileEntries(backing, space).length === 0, 'the drop', 100);
  });

  it('drops an add cut short by a crash once nobody has said it runs for 10 minutes', async () => {
    useFakeClock();
    const backing = new Map<string, Data>();
    const a = await drive(nodeOn(backing));
    const space = (await drive(a.spaces.create())).id;
    const bytes = sample(24 * CHUNK_BYTES, 3);
    // What the store holds when the process dies during the add: a copy taken then.
    let crashed: Map<string, Data> | undefined;
    async function* pieces() {
      for (const [i, piece] of [...piecesOf(bytes, CHUNK_BYTES)].entries()) {
        if (i === 20)
          crashed = new Map(
            [...backing].map(([k, d]) => [
              k,
              { entries: new Map(d.entries), versions: new Map(d.versions) },
            ]),
          );
        yield piece;
      }
    }
    const ref = await drive(a.records.addFile(space, pieces()));
    await drive(a.records.put(space, 'app.file', { ref }));
    await drive(a.close());
    nodes = [];
    const after = await drive(nodeOn(crashed));
    await drive(after.files.named(space)); // opens the space: a pass runs 2 s on
    const staged = fileEntries(crashed!, space);
    expect(staged).toHaveLength(17); // `adding` and 16 chunks
    // Within 10 minutes of its last `adding`, the add may still be running in another process
    // sharing the store: a pass keeps it.
    await advance(ADD_CUT_SHORT_MS - 60_000, 1_000);
    await drive(after.records.put(space, 'app.note', { text: 'a change: a pass soon' }));
    await advance(5_000, 100);
    expect(fileEntries(crashed!, space)).toEqual(staged);
    await advance(60_000, 1_000);
    await drive(after.records.put(space, 'app.note', { text: 'another' }));
    await within(10_000, () => fileEntries(crashed!, space).length === 0, 'the drop', 100);
    expect(await drive(after.files.whole(space))).toEqual([]);
  });
});
