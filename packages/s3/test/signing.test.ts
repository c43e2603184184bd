// s3rver checks the access key id but not V4 signatures, so these tests put a proxy in front
// that recomputes each signature independently (node:crypto) and answers 403 on a mismatch.
import { afterAll, describe, expect, it } from 'vitest';
import type { S3BlobStoreOptions } from '../src/index.ts';
import { type FaultProxy, startFaultProxy } from './fault-proxy.ts';
import { bytesOf, expectBytes, expectMincaError } from './helpers.ts';
import { ACCESS_KEY_ID, SECRET_ACCESS_KEY, s3rverForFile } from './s3rver-server.ts';

const SESSION_TOKEN = 'session-token-Hq2Rx8/Tt+Yy==';
const s3 = s3rverForFile();
const proxies: FaultProxy[] = [];

async function verifyingProxy(region: string, sessionToken?: string): Promise<FaultProxy> {
  const proxy = await startFaultProxy({
    upstream: s3.endpoint,
    verify: {
      accessKeyId: ACCESS_KEY_ID,
      secretAccessKey: SECRET_ACCESS_KEY,
      region,
      sessionToken,
    },
  });
  proxies.push(proxy);
  return proxy;
}

function store(proxy: FaultProxy, options: Partial<S3BlobStoreOptions> = {}) {
  return s3.store({
    endpoint: proxy.endpoint,
    prefix: 'signing',
    sleep: async () => {},
    ...options,
  });
}

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
});

describe('SigV4 signing', () => {
  it('signs every operation correctly, region auto and service s3 by default', async () => {
    const proxy = await verifyingProxy('auto');
    const blobs = store(proxy, { maxKeys: 2 });
    const keys = ['a.b', 'a-b/c_d', 'e', 'f/g', 'h'];
    for (const key of keys) await blobs.put(key, bytesOf(key.length, 50));
    for (const key of keys) expectBytes(await blobs.get(key), bytesOf(key.length, 50));
    // Pages of 2 send continuation tokens (base64: "+", "/", "=") in the signed query.
    expect(await blobs.list('')).toEqual([...keys].sort());
    expect(proxy.requests.some((r) => r.url.includes('continuation-token='))).toBe(true);
    await blobs.delete('e');
    expect(await blobs.get('e')).toBeNull();
    for (const request of proxy.requests) {
      expect(request.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=S3RVER\/\d{8}\/auto\/s3\/aws4_request, /,
      );
    }
  });

  it('signs the region given and the session token', async () => {
    const proxy = await verifyingProxy('eu-central-1', SESSION_TOKEN);
    const blobs = store(proxy, { region: 'eu-central-1', sessionToken: SESSION_TOKEN });
    await blobs.put('token/k', bytesOf(9, 9));
    expectBytes(await blobs.get('token/k'), bytesOf(9, 9));
    expect(await blobs.list('token/')).toEqual(['token/k']);
    expect(proxy.requests.every((r) => r.headers['x-amz-security-token'] === SESSION_TOKEN)).toBe(
      true,
    );

    // The same proxy refuses a store that leaves the token out.
    await expectMincaError(
      store(proxy, { region: 'eu-central-1' }).get('token/k'),
      'not_authorized',
    );
  });

  it('is refused with not_authorized under a wrong secret', async () => {
    const proxy = await verifyingProxy('auto');
    const wrong = store(proxy, { secretAccessKey: 'not-the-secret' });
    const error = await expectMincaError(wrong.put('k', bytesOf(1, 1)), 'not_authorized');
    expect(error.message).toBe('S3 put of "k" failed: HTTP 403 SignatureDoesNotMatch');
    await expectMincaError(wrong.get('k'), 'not_authorized');
    await expectMincaError(wrong.list(''), 'not_authorized');
    await expectMincaError(wrong.delete('k'), 'not_authorized');
  });

  it('is refused when a signed request is altered on the way', async () => {
    const proxy = await verifyingProxy('auto');
    const tampering = store(proxy, {
      fetch: (request) => fetch(request.url.replace('/signing/', '/signing-other/'), request),
    });
    const error = await expectMincaError(tampering.put('k', bytesOf(1, 1)), 'not_authorized');
    expect(error.message).toContain('SignatureDoesNotMatch');
  });
});
