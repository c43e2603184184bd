// A range read from a mirror (spec 05 §16.6.8): a device that never met the writer reads one
// chunk's worth of a file from the bucket, and only that chunk's blob is read.
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blob-store.js';
import { CHUNK_BYTES } from '../../src/files/chunks.js';
import { fakeBlobStore } from '../fake-adapter.js';
import { mirroredNode } from '../mirror/mirror-helpers.js';
import { same, sample } from './files-helpers.js';

/** `store`, noting the key of every blob read whole or by range. */
function counting(store: BlobStore) {
  const read: string[] = [];
  const wrapped: BlobStore = {
    get: (key) => {
      read.push(key);
      return store.get(key);
    },
    put: (key, bytes) => store.put(key, bytes),
    delete: (key) => store.delete(key),
    list: (prefix) => store.list(prefix),
    ...(store.getRange
      ? {
          getRange: (key: string, offset: number, length: number) => {
            read.push(key);
            return store.getRange!(key, offset, length);
          },
        }
      : {}),
    ...(store.listFolders ? { listFolders: (prefix) => store.listFolders!(prefix) } : {}),
  };
  return { wrapped, read };
}

describe('reading a range from a mirror', () => {
  it('reads only the blobs of the chunks the range covers', async () => {
    const bucket = fakeBlobStore();
    const { wrapped, read } = counting(bucket);
    const a = await mirroredNode([bucket]);
    const b = await mirroredNode([wrapped]);
    const { id: space } = await a.node.spaces.create();
    await a.node.spaces.setRole(space, b.node.did, 'writer');
    const ticket = await a.node.spaces.share(space, b.node.did);
    const bytes = sample(12 * CHUNK_BYTES + 50, 6);
    const ref = await a.node.records.addFile(space, bytes);
    await a.node.records.put(space, 'app.post', { ref });
    await a.node.close(); // never online with b: only the bucket between them

    await b.node.setFileLimits({ ahead: 0 });
    await b.node.spaces.join(ticket);
    await b.node.spaces.syncMirrors(space);
    read.length = 0;
    const file = await b.node.records.openFile(space, ref);
    const offset = 5 * CHUNK_BYTES + 100;
    const got = await file.read({ offset, length: 1000 });
    expect(same(got, bytes.subarray(offset, offset + 1000))).toBe(true);
    const chunkReads = read
      .filter((k) => k.startsWith(`files/${space}/`))
      .map((k) => k.split('/').at(-1));
    expect(chunkReads.filter((part) => part !== 'list')).toEqual(['5']);
    await file.close();
    expect([...a.errors, ...b.errors]).toEqual([]);
    await b.node.close();
  });
});
