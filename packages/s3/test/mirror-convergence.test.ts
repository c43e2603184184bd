import { runMirrorTests } from '@minca/core/testing';
import { memoryStores } from '@minca/memory';
import { afterAll, beforeAll } from 'vitest';
import { createS3BlobStore } from '../src/index.ts';
import {
  ACCESS_KEY_ID,
  BUCKET,
  type RunningS3rver,
  SECRET_ACCESS_KEY,
  startS3rver,
} from './s3rver-server.ts';

let s3: RunningS3rver;
let buckets = 0;
beforeAll(async () => {
  s3 = await startS3rver();
});
afterAll(async () => {
  await s3?.close();
});

// One real S3 server over HTTP; each test gets a prefix of its own, each device memory stores.
runMirrorTests('S3 (s3rver)', async () => ({
  store: createS3BlobStore({
    endpoint: s3.endpoint,
    bucket: BUCKET,
    prefix: `mirror-${++buckets}`,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
  }),
  stores: () => memoryStores(),
}));
