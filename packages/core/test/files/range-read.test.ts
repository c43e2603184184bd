// Reading a file by range (spec 05 §16.6.8): any range of a file held here, as bytes, as a
// ReadableStream and as pieces; from a peer only the chunks covering the range are fetched, a
// window ahead at most while the reader holds back; cancelling stops the fetch; a range nobody
// has waits until someone does.
import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES } from '../../src/files/chunks.js';
import { WINDOW_CHUNKS } from '../../src/files/range-reader.js';
import type { MincaNode } from '../../src/node.js';
import { connect, converged, nodeFixture, sharedSpace, until } from '../sync-helpers.js';
import { asks, link, same, sample } from './files-helpers.js';

const flip = (bytes: Uint8Array) => {
  const out = bytes.slice();
  out[out.length >> 1]! ^= 1;
  return out;
};

const { nodes, make } = nodeFixture();

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of stream) parts.push(part);
  return new Uint8Array(Buffer.concat(parts));
}

/** The chunks of `id` that `node` holds, by number. */
async function heldChunks(node: MincaNode, space: string, id: string, count: number) {
  const held: number[] = [];
  for (let n = 0; n < count; n++) if (await node.files.chunk(space, id, n)) held.push(n);
  return held;
}

/** A posts a file of `chunks` chunks (plus 100 bytes); B, linked, fetches nothing ahead. */
async function scene(chunks: number) {
  const [a, b] = [await make(), await make()];
  const space = await sharedSpace(a, [b]);
  await b.setFileLimits({ ahead: 0 });
  const bytes = sample(chunks * CHUNK_BYTES + 100, 7);
  const ref = await a.records.addFile(space, bytes, { mime: 'video/mp4', name: 'clip.mp4' });
  await a.records.put(space, 'app.post', { ref });
  connect(a, b);
  await converged([a, b], space);
  return { a, b, space, bytes, ref };
}

describe('reading a file by range', () => {
  it('reads any range of a file held here, as bytes, as a stream and as pieces', async () => {
    const a = await make();
    const space = (await a.spaces.create()).id;
    const bytes = sample(5 * CHUNK_BYTES + 1234, 3);
    const ref = await a.records.addFile(space, bytes, { mime: 'video/webm', name: 'a.webm' });
    await a.records.put(space, 'app.post', { ref });
    const file = await a.records.openFile(space, ref);
    expect(file).toMatchObject({
      id: ref.$file,
      size: bytes.length,
      mime: 'video/webm',
      name: 'a.webm',
    });
    const ranges = [
      { offset: 0, length: 10 },
      { offset: CHUNK_BYTES - 5, length: 10 },
      { offset: CHUNK_BYTES, length: CHUNK_BYTES },
      { offset: 100, length: 3 * CHUNK_BYTES },
      { offset: 5 * CHUNK_BYTES + 1000 },
      { offset: bytes.length, length: 0 },
      { offset: bytes.length - 10, length: 1000 }, // past the end: to the end
    ];
    for (const range of ranges) {
      const end = Math.min(bytes.length, range.offset + (range.length ?? bytes.length));
      const want = bytes.subarray(range.offset, end);
      expect(same(await file.read(range), want)).toBe(true);
      expect(same(await readAll(file.stream(range) as ReadableStream<Uint8Array>), want)).toBe(
        true,
      );
      const pieces: number[] = [];
      for await (const piece of file.chunks(range)) pieces.push(piece.length);
      expect(pieces.every((p) => p <= CHUNK_BYTES)).toBe(true);
      expect(pieces.reduce((x, y) => x + y, 0)).toBe(want.length);
      expect(same(await a.records.readFile(space, ref, { range }), want)).toBe(true);
    }
    expect(same(await file.read(), bytes)).toBe(true);
    const progress: number[] = [];
    await file.read(
      { offset: 10, length: 2 * CHUNK_BYTES },
      { onProgress: (p) => progress.push(p.done) },
    );
    expect(progress).toEqual([0, CHUNK_BYTES - 10, 2 * CHUNK_BYTES - 10, 2 * CHUNK_BYTES]);
    for (const range of [
      { offset: -1 },
      { offset: bytes.length + 1 },
      { offset: 1.5 },
      { length: -2 },
    ]) {
      await expect(file.read(range)).rejects.toMatchObject({ code: 'invalid_input' });
      expect(() => file.chunks(range)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    }
    await file.close();
    await expect(file.read()).rejects.toMatchObject({ code: 'closed' });
    // Not as named: a wrong key fails on the first chunk read.
    const wrong = await a.records.openFile(space, { ...ref, key: new Uint8Array(32) });
    await expect(wrong.read({ offset: 0, length: 1 })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(a.records.openFile(space, { ...ref, size: 3 })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it('fetches from a peer only the chunks covering the range', async () => {
    const { b, space, bytes, ref } = await scene(40);
    const file = await b.records.openFile(space, ref);
    const offset = 10 * CHUNK_BYTES + 5;
    const got = await file.read({ offset, length: CHUNK_BYTES });
    expect(same(got, bytes.subarray(offset, offset + CHUNK_BYTES))).toBe(true);
    expect(await heldChunks(b, space, ref.$file, 41)).toEqual([10, 11]);
    // A second range reads what is here and fetches the rest.
    const tail = await file.read({ offset: 11 * CHUNK_BYTES, length: 2 * CHUNK_BYTES });
    expect(same(tail, bytes.subarray(11 * CHUNK_BYTES, 13 * CHUNK_BYTES))).toBe(true);
    expect(await heldChunks(b, space, ref.$file, 41)).toEqual([10, 11, 12]);
    await file.close();
  });

  it('refuses a peer that sends wrong chunks for a range, and takes them from another', async () => {
    const [g, t, r] = [await make(), await make(), await make()];
    const space = await sharedSpace(g, [t, r]);
    await r.setFileLimits({ ahead: 0 });
    const bytes = sample(8 * CHUNK_BYTES, 4);
    const ref = await g.records.addFile(space, bytes);
    await g.records.put(space, 'app.post', { ref });
    connect(g, t);
    await until(async () => (await t.files.whole(space)).includes(ref.$file), 10_000, 't holding');
    // What T sends R has every chunk changed by one bit.
    const bad = link(r, t, (m) =>
      m.t === 'fdata' ? { ...m, c: m.c.map((c) => (c ? flip(c) : c)) } : m,
    );
    await converged([t, r], space);
    const good = link(r, g);
    await converged([g, r], space);
    const file = await r.records.openFile(space, ref);
    const offset = 2 * CHUNK_BYTES + 9;
    const got = await file.read({ offset, length: CHUNK_BYTES });
    expect(same(got, bytes.subarray(offset, offset + CHUNK_BYTES))).toBe(true);
    expect(asks(bad.fromA)).toBeGreaterThan(0);
    expect(asks(good.fromA)).toBeGreaterThan(0);
    // R keeps G's sealed chunks, the two the range covers and no others.
    expect(await heldChunks(r, space, ref.$file, 8)).toEqual([2, 3]);
    for (const n of [2, 3])
      expect(
        same(
          (await r.files.chunk(space, ref.$file, n))!,
          (await g.files.chunk(space, ref.$file, n))!,
        ),
      ).toBe(true);
    await file.close();
  });

  it('fetches at most a window ahead of a reader that holds back, and stops when cancelled', async () => {
    const count = 3 * WINDOW_CHUNKS;
    const { b, space, bytes, ref } = await scene(count);
    const file = await b.records.openFile(space, ref);
    const reader = (file.stream() as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(same(first.value!, bytes.subarray(0, CHUNK_BYTES))).toBe(true);
    // The reader holds back: the fetch stops two windows in (the one read and the next).
    await until(
      async () => (await heldChunks(b, space, ref.$file, count + 1)).length >= 2 * WINDOW_CHUNKS,
      10_000,
      'the windows',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect((await heldChunks(b, space, ref.$file, count + 1)).length).toBe(2 * WINDOW_CHUNKS);
    // Read on to past the first window: the third is asked; cancelled, nothing more comes.
    const parts = [first.value!];
    for (let i = 1; i < WINDOW_CHUNKS + 2; i++) parts.push((await reader.read()).value!);
    expect(
      same(new Uint8Array(Buffer.concat(parts)), bytes.subarray(0, parts.length * CHUNK_BYTES)),
    ).toBe(true);
    await reader.cancel();
    await new Promise((r) => setTimeout(r, 300));
    const held = (await heldChunks(b, space, ref.$file, count + 1)).length;
    expect(held).toBeLessThan(count + 1);
    await new Promise((r) => setTimeout(r, 300));
    expect((await heldChunks(b, space, ref.$file, count + 1)).length).toBe(held);
    // Read whole from there, as a stream: what was fetched is read here, the rest fetched.
    expect(same(await readAll(file.stream() as ReadableStream<Uint8Array>), bytes)).toBe(true);
    await file.close();
  });

  it('waits for a range nobody has until a peer that has it connects', async () => {
    const [a, b] = [await make(), await make()];
    const space = await sharedSpace(a, [b]);
    await b.setFileLimits({ ahead: 0 });
    const bytes = sample(3 * CHUNK_BYTES, 9);
    const ref = await a.records.addFile(space, bytes);
    await a.records.put(space, 'app.post', { ref });
    const [pa, pb] = connect(a, b);
    await converged([a, b], space);
    pa.close();
    pb.close();
    const file = await b.records.openFile(space, ref);
    let done = false;
    const reading = file.read({ offset: CHUNK_BYTES, length: 10 }).finally(() => {
      done = true;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false);
    const [qa, qb] = connect(a, b);
    expect(same(await reading, bytes.subarray(CHUNK_BYTES, CHUNK_BYTES + 10))).toBe(true);
    qa.close();
    qb.close();
    // A read that waits rejects `aborted` on its signal, and `closed` when the node closes.
    const range = { offset: 2 * CHUNK_BYTES, length: 5 };
    const controller = new AbortController();
    const waiting = file.read(range, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 200));
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'aborted' });
    const closing = file.read(range);
    await new Promise((r) => setTimeout(r, 200));
    await b.close();
    nodes.splice(nodes.indexOf(b), 1);
    await expect(closing).rejects.toMatchObject({ code: 'closed' });
  });
});
