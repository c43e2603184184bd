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

  it('read only lowercase hex of whole bytes: anything else is malformed', () => {
    const bad = ['0', 'abc', 'AB', 'aG', 'g0', '0:', '/0', '`a', 'a ', ' a', '0x', 'éa'];
    for (const hex of bad) {
      expect(() => fromHex(hex), hex).toThrow(expect.objectContaining({ code: 'malformed' }));
      // A bad pair anywhere in an id's 64 characters.
      if (hex.length === 2)
        for (const at of [0, 30, 62])
          expect(() => fromHex(`${'0'.repeat(at)}${hex}${'0'.repeat(62 - at)}`)).toThrow();
    }
    expect(() => fromHex(7 as never)).toThrow(expect.objectContaining({ code: 'malformed' }));
    expect(fromHex('00ff09af')).toEqual(new Uint8Array([0, 255, 9, 175]));
  });

  it('keep every string as it is: a BOM, accents, emoji, long ones', () => {
    for (const s of ['', '\ufeffabc', 'héllo wörld', 'emoji 🎉 and 中文', 'x'.repeat(30_000)])
      expect(flatString(s)).toBe(s);
  });
});
