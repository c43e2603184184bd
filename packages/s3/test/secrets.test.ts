// Every error path, with every message and cause chain scanned for what must never leak.
import { inspect } from 'node:util';
import type { BlobStore } from '@minca/core';
import { describe, expect, it, vi } from 'vitest';
import type { S3BlobStoreOptions } from '../src/index.ts';
import type { Fault } from './fault-proxy.ts';
import { bytesOf, closedPort } from './helpers.ts';
import { ACCESS_KEY_ID, proxyForFile, SECRET_ACCESS_KEY, s3rverForFile } from './s3rver-server.ts';

const SESSION_TOKEN = 'tok-Vb7Nq2Lp9Zr4';
const FORBIDDEN = [
  SECRET_ACCESS_KEY,
  SESSION_TOKEN,
  'x-amz-signature',
  'authorization',
  'credential=',
  'signature=',
];

const s3 = s3rverForFile();
const proxy = proxyForFile(s3);
const verifying = proxyForFile(s3, {
  verify: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: 'the-real-one', region: 'auto' },
});

function store(options: Partial<S3BlobStoreOptions> = {}): BlobStore {
  return s3.store({
    endpoint: proxy.endpoint,
    prefix: 'secrets',
    sessionToken: SESSION_TOKEN,
    sleep: async () => {},
    ...options,
  });
}

const times = (n: number, fault: Fault) => Array.from({ length: n }, () => fault);

/** Everything a logger could print of `error`: its inspection, causes and all, and String(). */
function printed(error: unknown): string {
  const parts = [inspect(error, { depth: 20, showHidden: true }), String(error)];
  for (let e = error, depth = 0; e instanceof Error && depth < 20; e = e.cause, depth++) {
    parts.push(String(e), e.message, e.stack ?? '');
  }
  return parts.join('\n').toLowerCase();
}

describe('no secret in any error or log', () => {
  it('keeps credentials, tokens and signatures out of every error path', async () => {
    const logs = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(() => {}),
    );
    const errors: unknown[] = [];
    const capture = async (what: () => Promise<unknown>) => {
      await what().then(
        () => errors.push(new Error('expected a failure')),
        (error: unknown) => errors.push(error),
      );
    };
    try {
      const blobs = store();
      await blobs.put('there', bytesOf(1, 2048));

      // Final answers: 400, 401, 403, a missing bucket.
      for (const status of [400, 401, 403]) {
        proxy.inject({ kind: 'status', status });
        await capture(() => blobs.get('there'));
      }
      await capture(() => store({ bucket: 'no-such-bucket' }).list(''));
      // Unknown access key (s3rver), wrong secret (the verifying proxy).
      await capture(() => store({ accessKeyId: 'UNKNOWN' }).put('k', bytesOf(1, 1)));
      await capture(() => store({ endpoint: verifying.endpoint }).delete('k'));
      // Giving up: on 503s, on resets before and mid-answer, on timeouts, on short bodies.
      proxy.inject(...times(5, { kind: 'status', status: 503, retryAfter: '0' }));
      await capture(() => blobs.put('there', bytesOf(2, 10)));
      proxy.inject(...times(5, { kind: 'reset-before' }));
      await capture(() => blobs.list(''));
      proxy.inject(...times(5, { kind: 'reset-mid' }));
      await capture(() => blobs.get('there'));
      proxy.inject(...times(5, { kind: 'delay', ms: 1_000 }));
      await capture(() => store({ timeoutMs: 100 }).get('there'));
      const shortBodies = store({
        fetch: async (request) => {
          const response = await fetch(request);
          return new Response((await response.arrayBuffer()).slice(1), {
            status: response.status,
            headers: { 'content-length': '2048' },
          });
        },
      });
      await capture(() => shortBodies.get('there'));
      // A listing that does not parse, a refused connection, bad keys and options.
      proxy.inject({ kind: 'replace', body: '<ListBucketResult><Contents><Key>a&bad;</Key>' });
      await capture(() => blobs.list(''));
      const refused = `http://127.0.0.1:${await closedPort()}`;
      await capture(() => store({ endpoint: refused }).get('there'));
      await capture(() => blobs.get('../up'));
      await capture(async () => store({ maxKeys: 5000 }));
      await capture(async () =>
        store({ endpoint: `http://127.0.0.1:1/?sig=${SECRET_ACCESS_KEY}` }),
      );

      const codes = errors.map((e) => (e as { code?: string }).code ?? (e as Error).name);
      expect(codes).toEqual([
        'storage',
        'not_authorized',
        'not_authorized',
        'storage',
        'not_authorized',
        'not_authorized',
        'unavailable',
        'unavailable',
        'unavailable',
        'unavailable',
        'unavailable',
        'malformed',
        'unavailable',
        'invalid_name',
        'RangeError',
        'TypeError',
      ]);
      for (const error of errors) {
        const text = printed(error);
        for (const secret of FORBIDDEN) {
          expect(text.includes(secret.toLowerCase()), `${secret} in ${String(error)}`).toBe(false);
        }
      }
      for (const log of logs) expect(log).not.toHaveBeenCalled();
    } finally {
      for (const log of logs) log.mockRestore();
    }
  });
});
