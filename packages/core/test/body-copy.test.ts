// A write answers with copyBody of what it wrote instead of decoding its encoding again: the
// two must give the same value, down to key order, -0 and the kind of byte string.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { assertBody, type BodyValue, copyBody } from '../src/body.js';
import { encodeCbor } from '../src/encoding.js';
import { decodeBody } from '../src/version-open.js';

/** `value` as a tree that keeps what equality of values loses: key order, -0, kinds, prototypes. */
function shape(value: unknown): unknown {
  if (value === null || typeof value !== 'object')
    return Object.is(value, -0) ? ['-0'] : [typeof value, value];
  if (value instanceof Uint8Array) return ['bytes', value.constructor.name, [...value]];
  if (Array.isArray(value)) return ['array', value.map(shape)];
  return [
    'object',
    Object.getPrototypeOf(value) === Object.prototype,
    Object.keys(value).map((key) => [key, shape((value as Record<string, unknown>)[key])]),
  ];
}

/** Every array, object and byte string of `copy` that is the same object in `original`. */
function shared(original: unknown, copy: unknown): number {
  if (copy === null || typeof copy !== 'object') return 0;
  let count = copy === original ? 1 : 0;
  if (copy instanceof Uint8Array) return count;
  for (const key of Object.keys(copy))
    count += shared(
      (original as Record<string, unknown>)[key],
      (copy as Record<string, unknown>)[key],
    );
  return count;
}

const KEYS = [
  '',
  'a',
  'b',
  'aa',
  'B',
  'text',
  '0',
  '1',
  '10',
  '01',
  '-1',
  '4294967294',
  '4294967295',
  'é',
  'ü日本',
  '😀',
  'z😀',
];

const body: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.constantFrom(-0, 2 ** 53, -(2 ** 60), 2 ** 64, 1e300, Number.MIN_VALUE),
    fc.string({ unit: 'grapheme' }),
    fc.uint8Array({ maxLength: 40 }),
    fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 8 }),
    fc
      .dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 })
      .map((o) => Object.assign(Object.create(null), o)),
  ),
})).value;

describe('copyBody', () => {
  test.prop([body], { numRuns: 2000 })('gives what decoding the encoding gives', (value) => {
    assertBody(value);
    const copy = copyBody(value);
    expect(shape(copy)).toEqual(shape(decodeBody(encodeCbor(value))));
    expect(shared(value, copy)).toBe(0);
  });

  it('orders keys as the encoding does, integer-like ones first as JavaScript lists them', () => {
    const value: BodyValue = { z: 1, é: 2, aa: 3, '10': 4, '': 5, '2': 6, '😀': 7, b: 8 };
    const keys = (v: BodyValue) => Object.keys(v as object);
    expect(keys(copyBody(value))).toEqual(['2', '10', '', 'b', 'z', 'aa', 'é', '😀']);
    expect(keys(decodeBody(encodeCbor(value)))).toEqual(keys(copyBody(value)));
  });

  it('answers -0 as 0 and a Buffer as a plain Uint8Array of its own', () => {
    const bytes = Buffer.from([1, 2, 3]);
    const copy = copyBody({ n: -0, bytes }) as { n: number; bytes: Uint8Array };
    expect(Object.is(copy.n, 0)).toBe(true);
    expect(copy.bytes.constructor).toBe(Uint8Array);
    bytes[0] = 9;
    expect([...copy.bytes]).toEqual([1, 2, 3]);
  });
});
