// getRange over HTTP: `Range: bytes=a-b`, a 206 read for only its bytes, a server that ignores
// the range read only as far as needed, 416 past the end, and the retry rules of a get.
import type { BlobStore } from '@minca/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, expectBytes, expectMincaError } from './helpers.ts';
import { proxyForFile, s3rverForFile } from './s3rver-server.ts';

const s3 = s3rverForFile();
const proxy = proxyForFile(s3);
let store: BlobStore;
const big = bytesOf(5, 1024 * 1024);

beforeAll(async () => {
  store = s3.store({ endpoint: proxy.endpoint, prefix: 'ranged', sleep: async () => {} });
  await store.put('big', big);
});

/** Reads a range and gives what crossed the wire for it. */
async function ranged(offset: number, length: number) {
  const from = proxy.requests.length;
  const bytes = await store.getRange!('big', offset, length);
  return { bytes, requests: proxy.requests.slice(from) };
}

describe('S3 ranged reads', () => {
  it('asks for the range and moves only its bytes', async () => {
    const { bytes, requests } = await ranged(300_000, 262_184);
    expectBytes(bytes, big.slice(300_000, 562_184));
    expect(requests.map((r) => r.headers.range)).toEqual(['bytes=300000-562183']);
    expect(requests[0]!.bytesOut).toBe(262_184);
  });

  it('reads a server that ignores the range only as far as it needs', async () => {
    proxy.inject({
      kind: 'replace',
      status: 200,
      body: big,
      headers: { 'content-type': 'application/octet-stream' },
    });
    const { bytes } = await ranged(10, 20);
    expectBytes(bytes, big.slice(10, 30));
  });

  it('takes a range past the end as empty, and an absent key as null', async () => {
    expectBytes((await ranged(big.length, 10)).bytes, new Uint8Array(0));
    expectBytes((await ranged(big.length - 3, 10)).bytes, big.slice(-3));
    expect(await store.getRange!('absent', 0, 10)).toBeNull();
  });

  it('tries again after 503 and a connection cut mid-body, as a get does', async () => {
    proxy.inject({ kind: 'status', status: 503, code: 'SlowDown' }, { kind: 'reset-mid' });
    const { bytes, requests } = await ranged(1000, 5000);
    expectBytes(bytes, big.slice(1000, 6000));
    expect(requests.length).toBe(3);
  });

  it('refuses a partial answer for another range', async () => {
    proxy.inject({
      kind: 'replace',
      status: 206,
      body: big.slice(0, 100),
      headers: { 'content-range': `bytes 0-99/${big.length}` },
    });
    await expectMincaError(store.getRange!('big', 50, 100), 'malformed');
  });

  it('is not_authorized on 403, and never asks again', async () => {
    const from = proxy.requests.length;
    proxy.inject({ kind: 'status', status: 403, code: 'AccessDenied' });
    await expectMincaError(store.getRange!('big', 0, 10), 'not_authorized');
    expect(proxy.requests.length - from).toBe(1);
  });
});
