import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { assertBody, type BodyValue } from '../src/body.js';
import { decodeStrict, encodeCbor } from '../src/encoding.js';
import { isMincaError } from '../src/errors.js';

const bodyValue: fc.Arbitrary<BodyValue> = fc.letrec<{ value: BodyValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: 'grapheme' }),
    fc.uint8Array({ maxLength: 64 }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(
      fc.string({ unit: 'grapheme-ascii' }).filter((k) => k !== '__proto__'),
      tie('value'),
      {
        maxKeys: 5,
      },
    ),
  ),
})).value;

const malformed = (bytes: number[] | Uint8Array) => {
  try {
    decodeStrict(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  } catch (error) {
    return isMincaError(error, 'malformed');
  }
  return false;
};

/** `value` with every -0 in it as 0: CBOR's shortest form writes -0 as the integer 0. */
function positiveZeros(value: BodyValue): BodyValue {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(positiveZeros);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, positiveZeros(v)]));
  return value;
}

describe('deterministic CBOR', () => {
  test.prop([bodyValue])(
    'round-trips every body value, and re-encodes to the same bytes',
    (value) => {
      assertBody(value);
      const bytes = encodeCbor(value);
      const back = decodeStrict(bytes);
      expect(back).toEqual(positiveZeros(value));
      expect(encodeCbor(back)).toEqual(bytes);
    },
  );

  test.prop([fc.dictionary(fc.string(), fc.integer(), { minKeys: 2, maxKeys: 8 })])(
    'encodes a map the same whatever order its keys were set in',
    (map) => {
      const reversed = Object.fromEntries(Object.entries(map).reverse());
      expect(encodeCbor(reversed)).toEqual(encodeCbor(map));
    },
  );

  it('rejects what is not strict, bounded CBOR', () => {
    expect(malformed([0x01, 0x02])).toBe(true); // trailing byte
    expect(malformed([0x9f, 0x01, 0xff])).toBe(true); // indefinite array
    expect(malformed([0xa2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02])).toBe(true); // duplicate key
    expect(malformed([0x18, 0x01])).toBe(true); // 1 not in its shortest form
    expect(malformed([0xf7])).toBe(true); // undefined
    expect(malformed([0xf9, 0x7e, 0x00])).toBe(true); // NaN
    expect(malformed([0xc1, 0x01])).toBe(true); // a tag
    expect(malformed([0x1b, 0, 0x20, 0, 0, 0, 0, 0, 0])).toBe(true); // 2^53: a bigint
    expect(malformed([0x62, 0x61])).toBe(true); // truncated string
    expect(malformed([0x5a, 0xff, 0xff, 0xff, 0xff])).toBe(true); // length past the end
    expect(malformed([])).toBe(true);
    expect(malformed(new Uint8Array(100).fill(0x81))).toBe(true); // nested deeper than 32
    expect(malformed(new Uint8Array(200_000).fill(0x81))).toBe(true); // deep enough to blow a naive stack
    expect(() => decodeStrict(new Uint8Array(10), { maxBytes: 4, maxDepth: 4 })).toThrow(/over 4/);
    expect(decodeStrict(new Uint8Array([0x82, 0x01, 0x02]))).toEqual([1, 2]);
  });

  it('refuses to encode what a body cannot hold', () => {
    for (const bad of [
      undefined,
      () => 1,
      new Date(),
      new Map(),
      Number.POSITIVE_INFINITY,
      1n,
      { a: undefined },
    ]) {
      expect(() => assertBody(bad), String(bad)).toThrow(/body/);
    }
  });
});
