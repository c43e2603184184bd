import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { flatString, fromHex, toHex } from '../src/bytes.js';

describe('hex and flat strings', () => {
  it('give the same hex as noble, at every length, and read back', () => {
    for (const n of [0, 1, 31, 32, 4096, 4097, 20_000]) {
      const bytes = crypto.getRandomValues(new Uint8Array(n));
      expect(toHex(bytes)).toBe(bytesToHex(bytes));
      expect(fromHex(toHex(bytes))).toEqual(bytes);
    }
  });

  it('keep every string as it is: a BOM, accents, emoji, long ones', () => {
    for (const s of ['', '\ufeffabc', 'héllo wörld', 'emoji 🎉 and 中文', 'x'.repeat(30_000)])
      expect(flatString(s)).toBe(s);
  });
});
