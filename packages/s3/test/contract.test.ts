import { runBlobStoreTests } from '@minca/core/testing';
import { s3rverForFile } from './s3rver-server.ts';

const s3 = s3rverForFile();
let stores = 0;

// One server for the file; each test's store is fresh because it has a prefix of its own.
runBlobStoreTests('S3 (s3rver)', async () => ({
  store: s3.store({ prefix: `contract-${++stores}` }),
}));
