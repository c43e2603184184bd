import { runMirrorTests } from '@minca/core/testing';
import { memoryStores } from '@minca/memory';
import { s3rverForFile } from './s3rver-server.ts';

const s3 = s3rverForFile();
let buckets = 0;

// One real S3 server over HTTP; each test gets a prefix of its own, each device memory stores.
runMirrorTests('S3 (s3rver)', async () => ({
  store: s3.store({ prefix: `mirror-${++buckets}` }),
  stores: () => memoryStores(),
}));
