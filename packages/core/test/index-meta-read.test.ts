import { describe, expect, it } from 'vitest';
import { toHex } from '../src/bytes.js';
import { decodeStrict, encodeCbor } from '../src/encoding.js';
import { encodeMeta } from '../src/index-entries.js';
import { readMetaFast } from '../src/index-meta-read.js';

// A fixed sequence from a small generator, so a failure shows again.
let seed = 5;
const next = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % n;
};
const hexId = () => toHex(Uint8Array.from({ length: 32 }, () => next(256)));
const TIMES = [0, 23, 24, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, Date.now(), 2 ** 53 - 1];

const strict = (bytes: Uint8Array) => {
  try {
    return decodeStrict(bytes, { maxBytes: 16 * 1024, maxDepth: 2 });
  } catch {
    return 'refused';
  }
};
/** Plain values to compare: byte strings as hex. */
const plain = (v: unknown): unknown =>
  v instanceof Uint8Array
    ? toHex(v)
    : Array.isArray(v)
      ? v.map(plain)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
        : v;

function randomMeta() {
  return {
    id: hexId(),
    record: ['r', 'profile', 'x'.repeat(64), `r${next(1e6)}`][next(4)]!,
    supersedes: Array.from({ length: [0, 1, 2, 23, 24][next(5)]! }, hexId),
    timestamp: TIMES[next(TIMES.length)]!,
    author: `did:key:z6Mk${'a'.repeat(next(50))}`,
    files: Array.from({ length: [0, 0, 1, 16][next(4)]! }, hexId),
    deleted: next(2) === 0,
  };
}

describe('an index entry read in one pass', () => {
  it('reads what encodeMeta writes as the strict decoder does', () => {
    let fast = 0;
    for (let i = 0; i < 2000; i++) {
      const bytes = encodeMeta(randomMeta());
      const read = readMetaFast(bytes);
      if (read) fast++;
      if (read) expect(plain(read)).toEqual(plain(strict(bytes)));
    }
    // Only lists of 24 ids or more are left to the strict decoder.
    expect(fast).toBeGreaterThan(1500);
  });

  it('accepts no changed bytes that the strict decoder would read otherwise or refuse', () => {
    for (let i = 0; i < 3000; i++) {
      const bytes = encodeMeta(randomMeta()).slice();
      const changes = 1 + next(3);
      for (let c = 0; c < changes; c++) bytes[next(bytes.length)] = next(256);
      const cut = next(4) === 0 ? bytes.subarray(0, next(bytes.length)) : bytes;
      const read = readMetaFast(cut);
      if (read) expect(plain(read)).toEqual(plain(strict(cut)));
    }
  });

  it('leaves other shapes and non-shortest heads to the strict decoder', () => {
    const ok = encodeMeta(randomMeta());
    expect(readMetaFast(ok)).toBeDefined();
    const five = encodeCbor({ a: 'x', d: true, f: [], p: [], r: 'r', t: 5 });
    expect(readMetaFast(five)?.t).toBe(5);
    for (const bytes of [
      encodeCbor({ a: 'x', d: true, f: [], p: [], r: 'r' }),
      encodeCbor({ a: 'é', d: true, f: [], p: [], r: 'r', t: 1 }),
      encodeCbor({ a: 'x', d: 1, f: [], p: [], r: 'r', t: 1 }),
      encodeCbor({ a: 'x', d: true, f: [], p: [], r: 'r', t: -1 }),
      encodeCbor({ a: 'x', d: true, f: [new Uint8Array(31)], p: [], r: 'r', t: 1 }),
      // t = 5 as a one-byte argument: not its shortest form.
      Uint8Array.from([
        ...encodeCbor({ a: 'x', d: true, f: [], p: [], r: 'r', t: 5 }).slice(0, -1),
        0x18,
        5,
      ]),
      new Uint8Array(0),
      Uint8Array.from([...ok, 0]),
    ])
      expect(readMetaFast(bytes)).toBeUndefined();
  });
});
