import { runMirrorTests } from '@minca/core/testing';
import { createDirectoryBlobStore, directoryStores } from '../src/node.ts';
import { tempDir } from './temp-dir.ts';

// A directory blob store on disk as the mirror; each device (at most two a test) keeps its
// stores in a directory of its own.
runMirrorTests('a directory blob store', async () => {
  const bucket = await tempDir();
  const devices = await Promise.all([tempDir(), tempDir()]);
  let next = 0;
  return {
    store: createDirectoryBlobStore(bucket.dir),
    stores: () => directoryStores(devices[next++ % devices.length]!.dir),
    teardown: async () => {
      for (const d of [bucket, ...devices]) await d.teardown();
    },
  };
});
