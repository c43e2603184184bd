// Mirrors by range: reading the 100th chunk of a 64 MiB file from an S3 mirror (s3rver over
// HTTP) moves about one chunk of bytes, not the file. A real node pushes the file to the
// bucket; a reader with nothing but the bucket reads chunk 99 through a proxy counting bytes.
import { randomBytes } from 'node:crypto';
import {
  CHUNK_BYTES,
  chunkMatches,
  createNode,
  decodeChunkList,
  MirrorFileSource,
  SEAL_OVERHEAD,
} from '@minca/core';
import { memoryStores } from '@minca/memory';
import { expect, it } from 'vitest';
import { proxyForFile, s3rverForFile } from './s3rver-server.ts';

const s3 = s3rverForFile();
const proxy = proxyForFile(s3);

const bucket = (endpoint: string) => s3.store({ endpoint, prefix: 'range' });

const SIZE = 64 * 1024 * 1024;
const SEALED_CHUNK = CHUNK_BYTES + SEAL_OVERHEAD;

it('reads the 100th chunk of a 64 MiB file from an S3 mirror moving about one chunk of bytes', async () => {
  const store = bucket(s3.endpoint);
  const writer = await createNode({ stores: memoryStores(), mirrors: [store] });
  const space = (await writer.spaces.create()).id;
  const ref = await writer.records.addFile(space, new Uint8Array(randomBytes(SIZE)));
  await writer.records.put(space, 'app.video', { ref });
  const listKey = (keys: string[]) => keys.find((k) => k.endsWith(`/${ref.$file}/list`));
  for (let i = 0; i < 600 && !listKey(await store.list(`files/${space}/`)); i++) {
    await writer.spaces.syncMirrors(space);
    await new Promise((r) => setTimeout(r, 100));
  }
  const keys = await store.list(`files/${space}/`);
  expect(listKey(keys)).toBeDefined();
  expect(keys.length).toBe(SIZE / CHUNK_BYTES + 1); // one blob per chunk, and the list
  const list = decodeChunkList((await writer.files.list(space, ref.$file))!, ref.$file);
  const expected = (await writer.files.chunk(space, ref.$file, 99))!;
  await writer.close();

  // A reader that has only the bucket, and the list (from a peer, or the mirror).
  const reader = new MirrorFileSource(bucket(proxy.endpoint), space, 0);
  const from = proxy.requests.length;
  const chunk = await reader.chunk(ref.$file, 99);
  const seen = proxy.requests.slice(from);
  const moved = seen.reduce((sum, r) => sum + r.bytesOut, 0);
  expect(chunk).toEqual(expected);
  expect(chunkMatches(list, 99, chunk!)).toBe(true);
  // One chunk and the writers' listing, not 64 MiB, nor a listing of every chunk.
  expect(moved).toBeGreaterThanOrEqual(SEALED_CHUNK);
  expect(moved).toBeLessThan(SEALED_CHUNK + 4096);
  expect(seen.map((r) => r.method)).toEqual(['GET', 'GET']);
  expect(seen[0]!.url).toContain('delimiter=%2F');
  expect(seen[1]!.headers.range).toBe(`bytes=0-${SEALED_CHUNK}`);

  // The list and the next chunk after it: the list's bytes and one chunk more, and no listing.
  const again = proxy.requests.length;
  expect(await reader.list(ref.$file)).toEqual(list.bytes);
  expect(chunkMatches(list, 100, (await reader.chunk(ref.$file, 100))!)).toBe(true);
  const next = proxy.requests.slice(again);
  expect(next.reduce((sum, r) => sum + r.bytesOut, 0)).toBeLessThan(
    list.bytes.length + SEALED_CHUNK + 4096,
  );
}, 180_000);
