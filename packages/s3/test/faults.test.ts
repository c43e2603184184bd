// A storm of injected faults: whatever the store says it stored must be there afterwards.
import { isMincaError } from '@minca/core';
import { seededRandom } from '@minca/core/testing';
import { describe, expect, it } from 'vitest';
import type { Fault } from './fault-proxy.ts';
import { bytesOf, expectBytes, inBatches } from './helpers.ts';
import { proxyForFile, s3rverForFile } from './s3rver-server.ts';

const s3 = s3rverForFile();
const proxy = proxyForFile(s3);

const FAULTS: Fault[] = [
  { kind: 'status', status: 429 },
  { kind: 'status', status: 429, retryAfter: '1' },
  { kind: 'status', status: 500 },
  { kind: 'status', status: 503, code: 'SlowDown' },
  { kind: 'reset-before' },
  { kind: 'reset-mid' },
  { kind: 'delay', ms: 20 },
];

describe('under a storm of faults', () => {
  it('loses nothing a put resolved for, and lists completely', async () => {
    const random = seededRandom(20261202);
    // About half the requests fail, so some operations exhaust their 5 attempts.
    proxy.plan = () => (random() < 0.5 ? FAULTS[Math.floor(random() * FAULTS.length)] : undefined);
    const stormy = s3.store({
      endpoint: proxy.endpoint,
      prefix: 'storm',
      maxKeys: 25,
      random,
      sleep: async () => {},
    });

    const keys = Array.from({ length: 150 }, (_, i) => `seg/${i % 7}/s${i}`);
    const stored = new Set<string>();
    let unavailable = 0;
    await inBatches(keys, 6, async (key) => {
      try {
        await stormy.put(key, bytesOf(key.length * 31 + key.charCodeAt(key.length - 1), 4096));
        stored.add(key);
      } catch (error) {
        expect(isMincaError(error, 'unavailable'), String(error)).toBe(true);
        unavailable++;
      }
    });
    expect(stored.size).toBeGreaterThan(100);
    expect(stored.size + unavailable).toBe(keys.length);

    // Reads and lists in the storm give right answers or `unavailable`, never wrong ones.
    let listed: string[] | undefined;
    for (let i = 0; i < 10 && !listed; i++) {
      listed = await stormy.list('seg/').catch((error: unknown) => {
        expect(isMincaError(error, 'unavailable')).toBe(true);
        return undefined;
      });
    }
    expect(listed).toBeDefined();
    for (const key of stored) expect(listed).toContain(key);

    proxy.plan = undefined;
    const calm = s3.store({ prefix: 'storm' });
    const all = await calm.list('');
    for (const key of stored) {
      expect(all).toContain(key);
      expectBytes(
        await calm.get(key),
        bytesOf(key.length * 31 + key.charCodeAt(key.length - 1), 4096),
      );
    }
    // A put that gave up may still have landed (the answer was lost, not the write): only
    // keys we tried can be there.
    for (const key of all) expect(keys).toContain(key);
  });
});
