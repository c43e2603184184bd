import { describe, expect, it } from 'vitest';
import { newRecordId, newRecordIds, RECORD_ID, randomId, SPACE_ID } from '../src/ids.js';

describe('record ids minca makes', () => {
  it('are 26 characters a record id may hold, and differ when made in the same ms', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = newRecordId(1_700_000_000_000);
      expect(id).toMatch(RECORD_ID);
      expect(id).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(1000);
  });

  it('sort as the times they were made at, whatever their random bits', () => {
    const times = [0, 1, 255, 256, 65_535, 1_700_000_000_000, 1_700_000_000_001, 2 ** 48 - 1];
    for (let i = 1; i < times.length; i++) {
      for (let k = 0; k < 50; k++) {
        const before = newRecordId(times[i - 1]!);
        const after = newRecordId(times[i]!);
        expect(before < after, `${times[i - 1]} → ${before}, ${times[i]} → ${after}`).toBe(true);
      }
    }
  });

  it('carry the time in their first ten characters (48 bits), the rest random', () => {
    const at = 1_733_000_000_123;
    const a = newRecordId(at);
    const b = newRecordId(at);
    expect(a.slice(0, 9)).toBe(b.slice(0, 9));
    const digits = '0123456789abcdefghjkmnpqrstvwxyz';
    let time = 0;
    for (const c of a.slice(0, 9)) time = time * 32 + digits.indexOf(c);
    // 45 bits in nine characters; the tenth holds the last three.
    expect(time * 8 + (digits.indexOf(a[9]!) >> 2)).toBe(at);
  });

  it('made together sort in the order made, share their time, and start anew each call', () => {
    const at = 1_733_000_000_123;
    const ids = newRecordIds(at, 5_000);
    expect(new Set(ids).size).toBe(5_000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
    // 5,000 steps carry past the last byte many times: each id still sorts after the one before.
    for (let i = 1; i < ids.length; i++) expect(ids[i - 1]! < ids[i]!).toBe(true);
    expect(new Set(ids.map((id) => id.slice(0, 9))).size).toBe(1);
    const again = newRecordIds(at, 2);
    expect(ids).not.toContain(again[0]);
    expect(newRecordIds(at, 0)).toEqual([]);
  });

  it('leave space ids as they were: RFC 4648 base32 of 16 random bytes', () => {
    for (let i = 0; i < 100; i++) expect(randomId()).toMatch(SPACE_ID);
  });
});
