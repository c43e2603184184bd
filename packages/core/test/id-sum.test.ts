import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../src/bytes.js';
import { IdSum } from '../src/id-sum.js';
import vectors from './vectors/negentropy.json' with { type: 'json' };

const sumOf = (ids: Uint8Array[]) => {
  const sum = new IdSum();
  for (const id of ids) sum.add(id);
  return sum;
};

describe('id sums and fingerprints', () => {
  it('matches the reference fingerprints', () => {
    expect(toHex(new IdSum().fingerprint())).toBe('7f9c9e31ac8256ca2f258583df262dbc');
    expect(toHex(sumOf(['aa', 'bb', 'cc'].map((b) => fromHex(b.repeat(32)))).fingerprint())).toBe(
      '62d07ed5f99715371e7bee95b2d2d162',
    );
    const wraps = sumOf([fromHex('ff'.repeat(32)), fromHex(`01${'00'.repeat(31)}`)]);
    expect(toHex(wraps.bytes())).toBe('00'.repeat(32));
    expect(toHex(wraps.fingerprint())).toBe('58cc2f44d3a27866874701fbad573da9');
    const cases = (vectors as { fingerprints: Array<{ ids: string[]; fingerprint: string }> })
      .fingerprints;
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases)
      expect(toHex(sumOf(c.ids.map(fromHex)).fingerprint())).toBe(c.fingerprint);
  });

  test.prop([
    fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 20 }),
    fc.nat(20),
  ])('adding then taking away, in any grouping, is the same as never adding', (ids, cut) => {
    const whole = sumOf(ids);
    const left = sumOf(ids.slice(0, cut));
    const right = sumOf(ids.slice(cut));
    left.addSum(right);
    expect(toHex(left.fingerprint())).toBe(toHex(whole.fingerprint()));
    for (const id of ids.slice(cut)) whole.add(id, -1);
    expect(toHex(whole.fingerprint())).toBe(toHex(sumOf(ids.slice(0, cut)).fingerprint()));
  });
});
