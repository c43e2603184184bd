import type { BlobStore } from '@minca/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { backoffMs, MAX_ATTEMPTS } from '../src/index.ts';
import { retryAfterMs } from '../src/retry-policy.ts';
import type { Fault } from './fault-proxy.ts';
import { bytesOf, expectBytes, expectMincaError } from './helpers.ts';
import { BUCKET, proxyForFile, s3rverForFile } from './s3rver-server.ts';

const s3 = s3rverForFile();
const proxy = proxyForFile(s3);
let waits: number[];
let randoms: number[];

/** A store through the proxy that records each wait instead of sleeping, with a fixed jitter. */
function store(options: { random?: number; timeoutMs?: number; prefix?: string } = {}): BlobStore {
  return s3.store({
    endpoint: proxy.endpoint,
    prefix: options.prefix ?? 'retry',
    timeoutMs: options.timeoutMs,
    random: () => {
      const r = options.random ?? 0.5;
      randoms.push(r);
      return r;
    },
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
}

/** The requests the proxy saw since `from`, for `path`'s object. */
const attemptsSince = (from: number, path: string) =>
  proxy.requests.slice(from).filter((r) => r.url.startsWith(`/${BUCKET}/retry/${path}`)).length;

beforeEach(() => {
  waits = [];
  randoms = [];
  proxy.plan = undefined;
});

describe('the retry policy', () => {
  it('computes min(200·2^attempt, 5000) ms times a factor in [0.75, 1.25), attempt from 0', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((a) => backoffMs(a, 0.5))).toEqual([
      200, 400, 800, 1600, 3200, 5000, 5000,
    ]);
    expect(backoffMs(0, 0)).toBe(150);
    expect(backoffMs(2, 0)).toBe(600);
    expect(backoffMs(0, 0.999_999)).toBeLessThan(250);
    expect(backoffMs(0, 0.999_999)).toBeGreaterThan(249.99);
    expect(backoffMs(9, 0)).toBe(3750);
  });

  it('reads Retry-After as delta-seconds or an HTTP date, at most 60 s', () => {
    const now = Date.parse('2026-12-02T12:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Wed, 02 Dec 2026 12:00:09 GMT', now)).toBe(9000);
    expect(retryAfterMs('Wed, 02 Dec 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('86400', now)).toBe(60_000);
    for (const bad of [null, '', '-1', '1.5', 'soon'])
      expect(retryAfterMs(bad, now)).toBeUndefined();
  });

  for (const [label, fault] of [
    ['429', { kind: 'status', status: 429 }],
    ['500', { kind: 'status', status: 500 }],
    ['503', { kind: 'status', status: 503, code: 'SlowDown' }],
    ['a reset before the answer', { kind: 'reset-before' }],
    ['a reset mid-answer', { kind: 'reset-mid' }],
  ] as Array<[string, Fault]>) {
    it(`retries ${label} with backoff, and succeeds on the 5th attempt`, async () => {
      const blobs = store();
      await blobs.put('r', bytesOf(1, 4096));
      waits = [];
      const from = proxy.requests.length;
      proxy.inject(fault, fault, fault, fault);
      expect(await blobs.get('r')).toEqual(bytesOf(1, 4096));
      expect(attemptsSince(from, 'r')).toBe(5);
      expect(waits).toEqual([200, 400, 800, 1600]);
    });
  }

  it('retries a put whose answer was cut after the write, and the value reads back', async () => {
    const blobs = store();
    const from = proxy.requests.length;
    proxy.inject({ kind: 'reset-mid' }, { kind: 'reset-before' }, { kind: 'reset-mid' });
    await blobs.put('cut', bytesOf(7, 300_000));
    expect(attemptsSince(from, 'cut')).toBe(4);
    expectBytes(await blobs.get('cut'), bytesOf(7, 300_000));
    expect(await blobs.list('cu')).toEqual(['cut']);
  });

  it('uses the random factor for each wait', async () => {
    const blobs = store({ random: 0 });
    const from = proxy.requests.length;
    proxy.inject({ kind: 'status', status: 500 }, { kind: 'status', status: 502 });
    await blobs.put('jitter', bytesOf(2, 10));
    expect(attemptsSince(from, 'jitter')).toBe(3);
    expect(waits).toEqual([150, 300]);
    expect(randoms).toHaveLength(2);
  });

  it('waits Retry-After seconds when given, in seconds or as an HTTP date', async () => {
    const blobs = store();
    proxy.inject(
      { kind: 'status', status: 429, retryAfter: '3' },
      { kind: 'status', status: 503, retryAfter: '0' },
      { kind: 'status', status: 503, retryAfter: 'soon' },
    );
    await blobs.put('after', bytesOf(3, 10));
    // The unreadable third falls back to the formula for attempt 2.
    expect(waits).toEqual([3000, 0, 800]);
    expect(randoms).toHaveLength(1);

    waits = [];
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    proxy.inject({ kind: 'status', status: 429, retryAfter: inTwoMinutes });
    await blobs.put('after', bytesOf(3, 10));
    // A date asks for about 120 s; waits are cut to 60 s.
    expect(waits).toEqual([60_000]);
  });

  it('gives up after 5 attempts with unavailable, its cause the last failure', async () => {
    const blobs = store();
    const from = proxy.requests.length;
    proxy.inject(
      ...Array.from({ length: MAX_ATTEMPTS }, () => ({ kind: 'status', status: 503 }) as Fault),
    );
    const error = await expectMincaError(blobs.put('gone', bytesOf(4, 10)), 'unavailable');
    expect(attemptsSince(from, 'gone')).toBe(MAX_ATTEMPTS);
    expect(waits).toEqual([200, 400, 800, 1600]);
    expect(error.message).toBe('S3 put of "gone" failed after 5 attempts');
    expect(String((error.cause as Error).message)).toContain('HTTP 503 InjectedFault');
    // Nothing was stored by the failed put; the next one goes through.
    expect(await blobs.get('gone')).toBeNull();
  });

  it('gives up after 5 broken connections, with the network error as cause', async () => {
    const blobs = store();
    const from = proxy.requests.length;
    proxy.inject(
      ...Array.from({ length: MAX_ATTEMPTS }, () => ({ kind: 'reset-before' }) as Fault),
    );
    const error = await expectMincaError(blobs.list('x'), 'unavailable');
    expect(proxy.requests.length - from).toBe(MAX_ATTEMPTS);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('does not retry other 4xx', async () => {
    const blobs = store();
    const from = proxy.requests.length;
    proxy.inject({ kind: 'status', status: 400, code: 'InvalidRequest' });
    const error = await expectMincaError(blobs.get('bad'), 'storage');
    expect(error.message).toBe('S3 get of "bad" failed: HTTP 400 InvalidRequest');
    proxy.inject({ kind: 'status', status: 401 });
    await expectMincaError(blobs.delete('bad'), 'not_authorized');
    proxy.inject({ kind: 'status', status: 403, code: 'AccessDenied' });
    await expectMincaError(blobs.list(''), 'not_authorized');
    // A redirect is an answer too, not followed: it would take our signed headers elsewhere.
    proxy.inject({
      kind: 'status',
      status: 301,
      code: 'PermanentRedirect',
      location: `${proxy.endpoint}/${BUCKET}/retry/elsewhere`,
    });
    const moved = await expectMincaError(blobs.put('bad', bytesOf(1, 1)), 'storage');
    expect(moved.message).toBe('S3 put of "bad" failed: HTTP 301 PermanentRedirect');
    expect(proxy.requests.length - from).toBe(4);
    expect(waits).toEqual([]);
  });

  it('waits out a slow answer within the timeout, and retries one past it', async () => {
    const blobs = store({ timeoutMs: 2_000 });
    await blobs.put('slow', bytesOf(5, 100));
    const from = proxy.requests.length;
    proxy.inject({ kind: 'delay', ms: 100 });
    expect(await blobs.get('slow')).toEqual(bytesOf(5, 100));
    expect(attemptsSince(from, 'slow')).toBe(1);

    proxy.inject({ kind: 'delay', ms: 5_000 });
    expect(await blobs.get('slow')).toEqual(bytesOf(5, 100));
    expect(attemptsSince(from, 'slow')).toBe(3);
    expect(waits).toEqual([200]);
  });

  it('retries a body shorter than its Content-Length', async () => {
    let cut = 2;
    const blobs = s3.store({
      prefix: 'retry',
      sleep: async () => {},
      // A real answer from s3rver, its body cut while the header still promises all of it.
      fetch: async (request) => {
        const response = await fetch(request);
        if (request.method !== 'GET' || cut-- <= 0) return response;
        const bytes = new Uint8Array(await response.arrayBuffer());
        return new Response(bytes.subarray(0, bytes.length - 1), {
          status: response.status,
          headers: { 'content-length': String(bytes.length) },
        });
      },
    });
    await blobs.put('short', bytesOf(6, 1000));
    expect(await blobs.get('short')).toEqual(bytesOf(6, 1000));
    expect(cut).toBe(-1);
  });
});
