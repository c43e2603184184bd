import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../src/bytes.js';
import { isMincaError } from '../src/errors.js';
import { Negentropy, NegentropyStorage } from '../src/negentropy/index.js';
import { ItemBuffer } from '../src/negentropy/item-buffer.js';
import { radixOrder } from '../src/negentropy/sort.js';
import { sealedItems } from '../src/negentropy/storage.js';

const id = (byte: number, last = byte) => {
  const b = new Uint8Array(32).fill(byte);
  b[31] = last;
  return b;
};

/** The ids of an initial message that is a single IdList (fewer than 32 items). */
function listedIds(storage: NegentropyStorage): string[] {
  const msg = new Negentropy(storage).initiate();
  // 61, INF bound 00 00, mode 02, count (one byte below 32), ids.
  expect(toHex(msg.subarray(0, 4))).toBe('61000002');
  const out: string[] = [];
  for (let i = 5; i < msg.length; i += 32) out.push(toHex(msg.subarray(i, i + 32)));
  expect(out.length).toBe(msg[4]);
  return out;
}

describe('NegentropyStorage', () => {
  it('sorts by timestamp, then by id as unsigned bytes', () => {
    const s = new NegentropyStorage();
    s.insert(5, id(0x01));
    s.insert(2n ** 64n - 2n, id(0x00));
    s.insert(5, id(0x80));
    s.insert(4, id(0xff));
    s.insert(2 ** 32, id(0x02));
    s.insert(5, id(0x01, 0x00));
    s.seal();
    expect(listedIds(s)).toEqual(
      [id(0xff), id(0x01, 0x00), id(0x01), id(0x80), id(0x02), id(0x00)].map(toHex),
    );
    expect(s.size).toBe(6);
  });

  it('treats number and bigint timestamps alike', () => {
    const a = new NegentropyStorage();
    const b = new NegentropyStorage();
    for (let i = 0; i < 40; i++) {
      const ts = 2 ** 40 + (i % 7) * 2 ** 33;
      a.insert(ts, id(i));
      b.insert(BigInt(ts), id(i));
    }
    a.seal();
    b.seal();
    expect(toHex(new Negentropy(a).initiate())).toBe(toHex(new Negentropy(b).initiate()));
  });

  it('drops exact duplicates when sealing, keeps the same id at two timestamps', () => {
    const s = new NegentropyStorage();
    s.insert(1, id(7));
    s.insert(1, id(7));
    s.insert(2, id(7));
    expect(s.size).toBe(3);
    s.seal();
    expect(s.size).toBe(2);
    expect(listedIds(s)).toEqual([toHex(id(7)), toHex(id(7))]);
  });

  it('drops duplicates wherever they were inserted', () => {
    const once = new NegentropyStorage();
    const twice = new NegentropyStorage();
    const items = Array.from({ length: 200 }, (_, i) => [i % 7, id(i % 50, i)] as const);
    for (const [ts, v] of items) once.insert(ts, v);
    for (const [ts, v] of [...items, ...items.reverse()]) twice.insert(ts, v);
    once.seal();
    twice.seal();
    expect(twice.size).toBe(200);
    expect(toHex(new Negentropy(twice).initiate())).toBe(toHex(new Negentropy(once).initiate()));
  });

  it('refuses bad items', () => {
    const s = new NegentropyStorage();
    expect(() => s.insert(-1, id(1))).toThrow(RangeError);
    expect(() => s.insert(1.5, id(1))).toThrow(RangeError);
    expect(() => s.insert(2 ** 53, id(1))).toThrow(RangeError);
    expect(() => s.insert(Number.NaN, id(1))).toThrow(RangeError);
    expect(() => s.insert(-1n, id(1))).toThrow(RangeError);
    expect(() => s.insert(2n ** 64n - 1n, id(1))).toThrow(RangeError);
    expect(() => s.insert('1' as unknown as number, id(1))).toThrow(TypeError);
    expect(() => s.insert(1, new Uint8Array(31))).toThrow(RangeError);
    expect(() => s.insert(1, new Uint8Array(33))).toThrow(RangeError);
    expect(() => s.insert(1, Array(32).fill(0) as unknown as Uint8Array)).toThrow(TypeError);
    expect(s.size).toBe(0);
  });

  it('is immutable once sealed, and must be sealed before use', () => {
    const s = new NegentropyStorage();
    s.insert(1, id(1));
    expect(() => new Negentropy(s)).toThrow(TypeError);
    s.seal();
    s.seal();
    let caught: unknown;
    try {
      s.insert(2, id(2));
    } catch (e) {
      caught = e;
    }
    expect(isMincaError(caught, 'closed')).toBe(true);
    expect(s.size).toBe(1);
    expect(() => new Negentropy({} as NegentropyStorage)).toThrow(TypeError);
  });

  it('grows past its initial capacity', () => {
    const s = new NegentropyStorage();
    for (let i = 0; i < 1000; i++) s.insert(1000 - i, fromHex(i.toString(16).padStart(64, '0')));
    s.seal();
    expect(s.size).toBe(1000);
    // Timestamps 1..1000 in 16 buckets, the first 8 of 63 items: the first bound is the 64th
    // item's timestamp, 64, sent as 64 + 1 = 0x41 with an empty prefix, then a Fingerprint.
    const msg = new Negentropy(s).initiate();
    expect(toHex(msg.subarray(0, 4))).toBe('61410001');
  });
});

describe('sealing order', () => {
  /** Rows sorted by radixOrder (keys given least significant first) and by comparing them. */
  const bothOrders = (rows: ReadonlyArray<readonly [number, number, number]>) => {
    const col = (k: 0 | 1 | 2) => Uint32Array.from(rows, (r) => r[k]);
    const order = radixOrder(rows.length, [col(2), col(1), col(0)]);
    const expected = rows
      .map((_, i) => i)
      .sort(
        (a, b) =>
          rows[a]![0] - rows[b]![0] ||
          rows[a]![1] - rows[b]![1] ||
          rows[a]![2] - rows[b]![2] ||
          a - b,
      );
    return { got: Array.from(order), expected };
  };

  // Few distinct values per key, so every tie-break level is exercised, across every 8-bit digit.
  const word = fc.constantFrom(
    0,
    1,
    0xff,
    0x100,
    0xffff,
    0x1_0000,
    0xff_0000,
    0x100_0000,
    0x1234_5678,
    0xffff_ffff,
  );
  test.prop([fc.array(fc.tuple(word, word, word), { maxLength: 300 })])(
    'radixOrder is a stable sort by the keys, least significant first',
    (rows) => {
      const { got, expected } = bothOrders(rows);
      expect(got).toEqual(expected);
    },
  );

  it('an item buffer takes more items than the room it was given, or none', () => {
    for (const room of [0, Number.NaN, 3, 100]) {
      const buffer = new ItemBuffer(room);
      for (let i = 9; i >= 0; i--) buffer.push(i, id(i));
      const items = buffer.take();
      expect(items.n).toBe(10);
      expect(Array.from(items.lo)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(Array.from(items.ids.subarray(9 * 32, 10 * 32))).toEqual(Array.from(id(9)));
    }
  });

  it('radixOrder sorts as many items as take its 16-bit digits', () => {
    // 40,000 rows from a fixed linear congruential sequence: past the count where the passes
    // widen, with values spread over both 16-bit digits and repeated enough to tie.
    let x = 12345;
    const next = () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x % 3 === 0 ? (x & 0xffff_0000) >>> 0 : x;
    };
    const rows = Array.from({ length: 40_000 }, () => [next() & 0xff, next(), next()] as const);
    const { got, expected } = bothOrders(rows);
    expect(got).toEqual(expected);
  });

  // Timestamps from a few values around 2^32; ids from a few bytes each, so items tie on the
  // timestamp, on the first id word and on the whole id.
  const byte = fc.constantFrom(0, 1, 0x7f, 0x80, 0xff);
  const item = fc.tuple(
    fc.constantFrom(0n, 1n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 64n - 2n),
    fc.tuple(byte, byte, byte, byte),
  );
  test.prop([fc.array(item, { maxLength: 200 })])(
    'seal orders by (timestamp, id bytes) and drops exact duplicates',
    (rows) => {
      const idOf = ([a, b, c, d]: number[]) => {
        const v = new Uint8Array(32);
        v[0] = a!;
        v[3] = b!;
        v[4] = c!;
        v[31] = d!;
        return v;
      };
      const s = new NegentropyStorage();
      for (const [ts, bytes] of rows) s.insert(ts, idOf(bytes));
      s.seal();
      const items = sealedItems(s);
      const got = Array.from({ length: items.n }, (_, i) => {
        const ts = (BigInt(items.hi[i]!) << 32n) | BigInt(items.lo[i]!);
        return `${ts.toString().padStart(20, '0')}:${toHex(items.ids.subarray(i * 32, i * 32 + 32))}`;
      });
      const want = [
        ...new Set(rows.map(([ts, b]) => `${ts.toString().padStart(20, '0')}:${toHex(idOf(b))}`)),
      ].sort();
      expect(got).toEqual(want);
      expect(s.size).toBe(want.length);
    },
  );
});

describe('Negentropy options', () => {
  it('takes 0 or at least 4096 as the frame size limit', () => {
    const s = new NegentropyStorage();
    s.seal();
    for (const ok of [0, 4096, 60000]) expect(() => new Negentropy(s, ok)).not.toThrow();
    for (const bad of [1, 4095, -1, 5000.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new Negentropy(s, bad)).toThrow(RangeError);
  });
});
