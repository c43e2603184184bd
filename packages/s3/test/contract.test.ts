import { runBlobStoreTests } from '@minca/core/testing';
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
let stores = 0;
beforeAll(async () => {
  s3 = await startS3rver();
});
afterAll(async () => {
  await s3?.close();
});

// One server for the file; each test's store is fresh because it has a prefix of its own.
runBlobStoreTests('S3 (s3rver)', async () => ({
  store: createS3BlobStore({
    endpoint: s3.endpoint,
    bucket: BUCKET,
    prefix: `contract-${++stores}`,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
  }),
}));
