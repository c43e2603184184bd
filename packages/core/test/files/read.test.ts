import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES } from '../../src/files/chunks.js';
import { connect, converged, nodeFixture, sharedSpace, until } from '../sync-helpers.js';
import { same, sample, whole } from './files-helpers.js';

const { nodes, make: track } = nodeFixture();

describe('addFile and readFile', () => {
  it('adds a file in chunks and reads it back here, with progress', async () => {
    const a = await track();
    const space = (await a.spaces.create()).id;
    const bytes = sample(CHUNK_BYTES * 20 + 123);
    const progress: number[] = [];
    const ref = await a.records.addFile(space, bytes, {
      mime: 'video/mp4',
      name: 'clip.mp4',
      onProgress: ({ done, total }) => {
        expect(total).toBe(bytes.length);
        progress.push(done);
      },
    });
    expect(ref).toMatchObject({ size: bytes.length, mime: 'video/mp4', name: 'clip.mp4' });
    expect(progress.at(-1)).toBe(bytes.length);
    expect(progress).toEqual([...progress].sort((x, y) => x - y));
    const post = await a.records.put(space, 'app.post', { text: 'look', video: ref });
    expect(post.files).toEqual([ref.$file]);
    expect(same(await a.records.readFile(space, ref), bytes)).toBe(true);
    // Sealed in the store: no chunk holds the plaintext.
    const chunk = await a.files.chunk(space, ref.$file, 0);
    expect(chunk!.length).toBe(CHUNK_BYTES + 40);
    expect(Buffer.from(chunk!).includes(Buffer.from(bytes.subarray(0, 64)))).toBe(false);
  });

  it('reads from a connected peer, checking every chunk', async () => {
    const [a, b] = [await track(), await track()];
    const space = await sharedSpace(a, [b]);
    await b.setFileLimits({ ahead: 0 });
    const bytes = sample(CHUNK_BYTES * 9 + 1, 2);
    const ref = await a.records.addFile(space, bytes);
    await a.records.put(space, 'app.post', { ref });
    connect(a, b);
    await converged([a, b], space);
    const progress: number[] = [];
    const read = await b.records.readFile(space, ref, {
      onProgress: ({ done }) => progress.push(done),
    });
    expect(same(read, bytes)).toBe(true);
    expect(progress.at(-1)).toBe(bytes.length);
    expect((await whole(b, space)).has(ref.$file)).toBe(true);
  });

  it('rejects a file no record names, one that will not open as named, and a closed space', async () => {
    const [a, b] = [await track(), await track()];
    const space = await sharedSpace(a, [b]);
    const ref = await a.records.addFile(space, sample(1000));
    // Not named by any record here: B has no business with it.
    await expect(b.records.readFile(space, ref)).rejects.toMatchObject({ code: 'invalid_input' });
    await a.records.put(space, 'app.post', { ref });
    await a.records.put(space, 'app.post', { bad: { ...ref, key: new Uint8Array(32) } });
    await a.records.put(space, 'app.post', { bad: { ...ref, size: 999 } });
    await expect(
      a.records.readFile(space, { ...ref, key: new Uint8Array(32) }),
    ).rejects.toMatchObject({ code: 'invalid_input', message: /does not open/ });
    await expect(a.records.readFile(space, { ...ref, size: 999 })).rejects.toMatchObject({
      code: 'invalid_input',
      message: /won't open as named/,
    });
    await expect(a.records.readFile(space, { $file: 'x' } as never)).rejects.toMatchObject({
      code: 'invalid_input',
    });
    // Nothing was lost by the bad reads.
    expect((await a.records.readFile(space, ref)).length).toBe(1000);

    // B knows the record but nobody connected has the file: it waits, until the space closes.
    connect(a, b);
    await converged([a, b], space);
    await b.setFileLimits({ ahead: 0 });
    await a.close();
    nodes.splice(nodes.indexOf(a), 1);
    const waiting = b.records.readFile(space, ref);
    await new Promise((r) => setTimeout(r, 50));
    await b.spaces.close(space);
    await expect(waiting).rejects.toMatchObject({ code: 'closed' });
  });

  it('names at most 16 files on a record', async () => {
    const a = await track();
    const space = (await a.spaces.create()).id;
    const refs = [];
    for (let i = 0; i < 17; i++) refs.push(await a.records.addFile(space, sample(10, i)));
    await expect(a.records.put(space, 'app.post', { refs })).rejects.toMatchObject({
      code: 'too_large',
    });
    const ok = await a.records.put(space, 'app.post', { refs: refs.slice(0, 16) });
    expect(ok.files.length).toBe(16);
  });

  it('aborts an add and a read on their signal', async () => {
    const [a, b] = [await track(), await track()];
    const space = await sharedSpace(a, [b]);
    const controller = new AbortController();
    controller.abort();
    await expect(
      a.records.addFile(space, sample(100), { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'aborted' });
    const ref = await a.records.addFile(space, sample(100));
    await a.records.put(space, 'app.post', { ref });
    connect(a, b);
    await converged([a, b], space);
    await a.close();
    nodes.splice(nodes.indexOf(a), 1);
    const reading = new AbortController();
    const read = b.records.readFile(space, ref, { signal: reading.signal });
    await until(async () => true);
    reading.abort();
    await expect(read).rejects.toMatchObject({ code: 'aborted' });
  });

  it('adds and reads an empty file, and refuses bad arguments', async () => {
    const [a, b] = [await track(), await track()];
    const space = await sharedSpace(a, [b]);
    const empty = await a.records.addFile(space, new Uint8Array());
    await a.records.put(space, 'app.post', { empty });
    connect(a, b);
    await converged([a, b], space);
    expect((await b.records.readFile(space, empty)).length).toBe(0);
    await expect(a.records.addFile(space, 'text' as never)).rejects.toBeInstanceOf(TypeError);
    await expect(a.records.addFile(space, sample(10), { mime: 7 as never })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(
      a.records.addFile(space, sample(10), { name: 'x'.repeat(1001) }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(a.records.addFile('nope', sample(10))).rejects.toMatchObject({
      code: 'unknown_space',
    });
  });
});
