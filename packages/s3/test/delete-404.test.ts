// "A 404 on delete is success": a service that answers a delete with 404 NoSuchKey (as some
// S3-compatible ones do for a key already gone) is done, once, with nothing retried; a 404 for
// a missing bucket is not. s3rver itself answers 204, so a proxy on 127.0.0.1 answers 404.
import { describe, expect, it } from 'vitest';
import { bytesOf, expectMincaError } from './helpers.ts';
import { proxyForFile, s3rverForFile } from './s3rver-server.ts';

const s3 = s3rverForFile();
const proxy = proxyForFile(s3);

const store = () =>
  s3.store({ endpoint: proxy.endpoint, prefix: 'delete-404', sleep: async () => undefined });

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
