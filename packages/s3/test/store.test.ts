import type { BlobStore } from '@minca/core';
import { describe, expect, it } from 'vitest';
import { createS3BlobStore } from '../src/index.ts';
import { bytesOf, expectBytes, expectMincaError, inBatches } from './helpers.ts';
import { BUCKET, proxyForFile, s3rverForFile } from './s3rver-server.ts';

const s3 = s3rverForFile();
const proxy = proxyForFile(s3);
const noWait = async () => {};

function store(
  options: { prefix?: string; maxKeys?: number; endpoint?: string; bucket?: string } = {},
): BlobStore {
  return s3.store({
    endpoint: options.endpoint ?? s3.endpoint,
    bucket: options.bucket ?? BUCKET,
    prefix: options.prefix,
    maxKeys: options.maxKeys,
    sleep: noWait,
  });
}

describe('createS3BlobStore against s3rver', () => {
  it('puts, gets, overwrites and deletes', async () => {
    const blobs = store({ prefix: 'basic' });
    expect(await blobs.get('a/b')).toBeNull();
    await blobs.put('a/b', bytesOf(1, 100));
    expect(await blobs.get('a/b')).toEqual(bytesOf(1, 100));
    await blobs.put('a/b', bytesOf(2, 7));
    expect(await blobs.get('a/b')).toEqual(bytesOf(2, 7));
    await blobs.delete('a/b');
    expect(await blobs.get('a/b')).toBeNull();
    await blobs.delete('a/b');
    await blobs.delete('never/there');
  });

  it('keeps empty and 3 MiB values byte for byte', async () => {
    const blobs = store({ prefix: 'sizes' });
    await blobs.put('empty', new Uint8Array(0));
    await blobs.put('large', bytesOf(3, 3 * 1024 * 1024));
    expect(await blobs.get('empty')).toEqual(new Uint8Array(0));
    expectBytes(await blobs.get('large'), bytesOf(3, 3 * 1024 * 1024));
  });

  it('takes views into larger buffers and copies nothing extra', async () => {
    const blobs = store({ prefix: 'views' });
    const whole = bytesOf(4, 64);
    await blobs.put('view', whole.subarray(10, 20));
    expect(await blobs.get('view')).toEqual(whole.slice(10, 20));
  });

  it('handles keys with ".", "-" and "_" and nesting, and lists them sorted', async () => {
    const blobs = store({ prefix: 'tricky' });
    const keys = [
      'a.b',
      'a-b',
      'a_b',
      'A',
      'z/y.x/w-v_u',
      '_x',
      '-y',
      'a/b',
      'a/b.c',
      'a/b/c',
      'ab',
      '9',
    ];
    await inBatches(keys, 4, (k) => blobs.put(k, bytesOf(k.length, 3)));
    expect(await blobs.list('')).toEqual([...keys].sort());
    for (const key of keys) expect(await blobs.get(key)).toEqual(bytesOf(key.length, 3));
  });

  it('lists by plain string prefix, sibling prefixes apart', async () => {
    const blobs = store({ prefix: 'siblings' });
    for (const key of ['foo', 'foo/a', 'foo/b', 'foobar', 'foobar/x', 'fo']) {
      await blobs.put(key, bytesOf(1, 1));
    }
    expect(await blobs.list('foo/')).toEqual(['foo/a', 'foo/b']);
    expect(await blobs.list('foo')).toEqual(['foo', 'foo/a', 'foo/b', 'foobar', 'foobar/x']);
    expect(await blobs.list('foob')).toEqual(['foobar', 'foobar/x']);
    expect(await blobs.list('nothing')).toEqual([]);
  });

  it('keeps stores with different prefixes apart in one bucket', async () => {
    const one = store({ prefix: 'tenant-1' });
    const two = store({ prefix: 'tenant-1-b/' });
    const root = store();
    await one.put('k', bytesOf(1, 5));
    await two.put('k', bytesOf(2, 5));
    expect(await one.get('k')).toEqual(bytesOf(1, 5));
    expect(await two.get('k')).toEqual(bytesOf(2, 5));
    expect(await one.list('')).toEqual(['k']);
    expect(await two.list('')).toEqual(['k']);
    // Without a prefix the same objects are plain keys under their prefix.
    expect(await root.list('tenant-1')).toEqual(['tenant-1-b/k', 'tenant-1/k']);
    await one.delete('k');
    expect(await two.get('k')).toEqual(bytesOf(2, 5));
  });

  it('follows continuation tokens past 1000 keys with the default page size', async () => {
    const blobs = store({ endpoint: proxy.endpoint, prefix: 'many' });
    const keys = Array.from({ length: 1005 }, (_, i) => `k${String(i).padStart(4, '0')}`);
    await inBatches(keys, 8, (k) => blobs.put(k, new Uint8Array([1])));
    const before = proxy.requests.length;
    expect(await blobs.list('')).toEqual(keys);
    const pages = proxy.requests.slice(before);
    expect(pages).toHaveLength(2);
    expect(pages[0]!.url).not.toContain('continuation-token');
    expect(pages[1]!.url).toContain('continuation-token=');
  });

  it('pages with a small maxKeys, nested keys included', async () => {
    const blobs = store({ endpoint: proxy.endpoint, prefix: 'paged', maxKeys: 7 });
    const keys = Array.from({ length: 40 }, (_, i) => (i % 3 ? `d${i % 4}/n${i}` : `n${i}`)).sort();
    await inBatches(keys, 8, (k) => blobs.put(k, new Uint8Array([2])));
    const before = proxy.requests.length;
    expect(await blobs.list('')).toEqual(keys);
    const pages = proxy.requests.slice(before);
    expect(pages.length).toBe(Math.ceil(keys.length / 7));
    expect(pages.every((r) => r.url.includes('list-type=2') && r.url.includes('max-keys=7'))).toBe(
      true,
    );
  });

  it('uses path-style URLs with each part encoded', async () => {
    const blobs = store({ endpoint: `${proxy.endpoint}/`, prefix: 'url-style/x' });
    const before = proxy.requests.length;
    await blobs.put('p.q/r-s_t', new Uint8Array([3]));
    await blobs.list('p.q/');
    const [put, list] = proxy.requests.slice(before);
    expect(put!.method).toBe('PUT');
    expect(put!.url).toBe(`/${BUCKET}/url-style/x/p.q/r-s_t`);
    expect(list!.url).toBe(`/${BUCKET}?list-type=2&prefix=url-style%2Fx%2Fp.q%2F`);
  });

  it('rejects bad keys before any request', async () => {
    const blobs = store();
    for (const key of ['', '/a', 'a/', '.hidden', 'a//b', 'a b', 'é', 'a?b', 'x'.repeat(201)]) {
      await expectMincaError(blobs.get(key), 'invalid_name');
      await expectMincaError(blobs.put(key, new Uint8Array(1)), 'invalid_name');
      await expectMincaError(blobs.delete(key), 'invalid_name');
    }
    await expect(blobs.put('ok', 'text' as unknown as Uint8Array)).rejects.toThrow(TypeError);
    await expect(blobs.list(7 as unknown as string)).rejects.toThrow(TypeError);
  });

  it('rejects misused options with TypeError or RangeError', () => {
    const base = { endpoint: s3.endpoint, bucket: BUCKET, accessKeyId: 'id', secretAccessKey: 's' };
    expect(() => createS3BlobStore({ ...base, endpoint: 'not a url' })).toThrow(TypeError);
    expect(() => createS3BlobStore({ ...base, endpoint: 'ftp://host' })).toThrow(TypeError);
    expect(() => createS3BlobStore({ ...base, endpoint: 'https://u:p@host' })).toThrow(TypeError);
    expect(() => createS3BlobStore({ ...base, endpoint: 'https://host/?x=1' })).toThrow(TypeError);
    expect(() => createS3BlobStore({ ...base, bucket: '' })).toThrow(TypeError);
    expect(() => createS3BlobStore({ ...base, bucket: 'a/b' })).toThrow(TypeError);
    expect(() => createS3BlobStore({ ...base, secretAccessKey: '' })).toThrow(TypeError);
    expect(() => createS3BlobStore({ ...base, maxKeys: 0 })).toThrow(RangeError);
    expect(() => createS3BlobStore({ ...base, maxKeys: 1001 })).toThrow(RangeError);
    expect(() => createS3BlobStore({ ...base, timeoutMs: 0 })).toThrow(RangeError);
    expect(() => createS3BlobStore({ ...base, prefix: '../up' })).toThrow(/invalid blob key/);
  });

  it('reports a missing bucket as a storage error, not as absence', async () => {
    const blobs = store({ bucket: 'no-such-bucket' });
    await expectMincaError(blobs.get('k'), 'storage');
    await expectMincaError(blobs.delete('k'), 'storage');
    await expectMincaError(blobs.put('k', new Uint8Array(1)), 'storage');
    const error = await expectMincaError(blobs.list(''), 'storage');
    expect(error.message).toContain('NoSuchBucket');
  });

  it('reports an unknown access key id as not_authorized, naming operation and key', async () => {
    const blobs = s3.store({ accessKeyId: 'NOT-A-KNOWN-KEY', sleep: noWait });
    const error = await expectMincaError(blobs.get('some/key'), 'not_authorized');
    expect(error.message).toBe('S3 get of "some/key" failed: HTTP 403 InvalidAccessKeyId');
    await expectMincaError(blobs.put('some/key', new Uint8Array(1)), 'not_authorized');
    await expectMincaError(blobs.list(''), 'not_authorized');
  });
});
