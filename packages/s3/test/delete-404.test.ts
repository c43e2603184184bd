// "A 404 on delete is success": a service that answers a delete with 404 NoSuchKey (as some
// S3-compatible ones do for a key already gone) is done, once, with nothing retried; a 404 for
// a missing bucket is not. s3rver itself answers 204, so a proxy on 127.0.0.1 answers 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3BlobStore } from '../src/index.ts';
import { type FaultProxy, startFaultProxy } from './fault-proxy.ts';
import { bytesOf, expectMincaError } from './helpers.ts';
import {
  ACCESS_KEY_ID,
  BUCKET,
  type RunningS3rver,
  SECRET_ACCESS_KEY,
  startS3rver,
} from './s3rver-server.ts';

let s3: RunningS3rver;
let proxy: FaultProxy;
beforeAll(async () => {
  s3 = await startS3rver();
  proxy = await startFaultProxy({ upstream: s3.endpoint });
});
afterAll(async () => {
  await proxy?.close();
  await s3?.close();
});

const store = () =>
  createS3BlobStore({
    endpoint: proxy.endpoint,
    bucket: BUCKET,
    prefix: 'delete-404',
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    sleep: async () => undefined,
  });

describe('delete answered 404', () => {
  it('is success, asked once; the object stays gone', async () => {
    const blobs = store();
    await blobs.put('k', bytesOf(1, 10));
    await blobs.delete('k'); // through to s3rver: gone
    const from = proxy.requests.length;
    proxy.inject({ kind: 'status', status: 404, code: 'NoSuchKey' });
    await expect(blobs.delete('k')).resolves.toBeUndefined();
    const asked = proxy.requests.slice(from);
    expect(asked.map((r) => r.method)).toEqual(['DELETE']);
    expect(asked[0]!.fault).toEqual(expect.objectContaining({ status: 404 }));
    expect(await blobs.get('k')).toBeNull();
  });

  it('is a storage error when the bucket itself is missing', async () => {
    const blobs = store();
    proxy.inject({ kind: 'status', status: 404, code: 'NoSuchBucket' });
    await expectMincaError(blobs.delete('k'), 'storage');
  });
});
