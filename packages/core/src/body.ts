/**
 * What a record body may hold: JSON's values plus byte strings, so it encodes the same way
 * everywhere. Checked before a body is written and after one is read.
 */
import { compareBytes, utf8 } from './bytes.js';
import { byEncoding, isAscii } from './cbor-fast.js';
import { MincaError } from './errors.js';

/** A record body value. */
export type BodyValue =
  | null
  | boolean
  | number
  | string
  | Uint8Array
  | BodyValue[]
  | { [key: string]: BodyValue };

/** Largest encoded body, in bytes. Records hold small things; big ones go in files. */
export const MAX_BODY_BYTES = 256 * 1024;
/** Deepest nesting of arrays and objects in a body. */
export const MAX_BODY_DEPTH = 32;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Throws `invalid_input` naming the first part of `value` that a body can't hold (a value of
 * another kind, nesting deeper than {@link MAX_BODY_DEPTH}), or `too_large` once it holds more
 * than {@link MAX_BODY_BYTES} even at the fewest bytes each part could encode to. It walks the value with a stack of its
 * own, never recursing, and stops at the first fault, so a body nested 100,000 deep or holding
 * millions of items costs no more than the part read before the fault.
 */
export function assertBody(value: unknown, path = 'body', depth = 0): asserts value is BodyValue {
  // Depth first, in the order a reader would name things: the first fault found is the first one.
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path, depth }];
  // A lower bound of the encoded size: each item takes at least its head byte, and text and
  // bytes at least one byte per code unit or byte.
  let bytes = 0;
  const fail = (at: string, why: string, code: 'invalid_input' | 'too_large' = 'invalid_input') => {
    throw new MincaError(code, `${at} ${why}`);
  };
  const count = (n: number, at: string) => {
    bytes += n;
    // `too_large`, as a body that encodes past the bound is (version.ts): found sooner here.
    if (bytes > MAX_BODY_BYTES)
      fail(
        at,
        `makes the body larger than ${MAX_BODY_BYTES} bytes; put large things in a file`,
        'too_large',
      );
  };
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value: v, path: at, depth: d } = next;
    count(1, at);
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) fail(at, 'is not a finite number');
      continue;
    }
    if (typeof v === 'string') {
      count(v.length, at);
      if (LONE_SURROGATE.test(v)) fail(at, 'holds a lone surrogate, which UTF-8 cannot encode');
      continue;
    }
    if (v instanceof Uint8Array) {
      count(v.length, at);
      continue;
    }
    if (typeof v !== 'object') fail(at, `is a ${typeof v}, which a body cannot hold`);
    if (d >= MAX_BODY_DEPTH) fail(at, `nests deeper than ${MAX_BODY_DEPTH}`);
    const children: Array<{ value: unknown; path: string; depth: number }> = [];
    if (Array.isArray(v)) {
      count(v.length, at);
      for (let i = 0; i < v.length; i++)
        children.push({ value: v[i], path: `${at}[${i}]`, depth: d + 1 });
    } else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) fail(at, 'is not a plain object');
      for (const key of Object.keys(v as object)) {
        if (key === '__proto__') fail(at, 'has a key "__proto__"');
        const item = (v as Record<string, unknown>)[key];
        if (item === undefined) fail(at, `.${key} is undefined; leave the key out instead`);
        count(1 + key.length, at);
        children.push({ value: item, path: `${at}.${key}`, depth: d + 1 });
      }
    }
    // Pushed last to first, so the first child is looked at first.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

/**
 * RFC 8949's order of text keys by their encodings: fewer UTF-8 bytes first, then bytewise
 * (ASCII's bytes are its characters, so it is compared as it is).
 */
function keyOrder(a: string, b: string): number {
  if (isAscii(a) && isAscii(b)) return byEncoding(a, b);
  const x = utf8(a);
  const y = utf8(b);
  return x.length - y.length || compareBytes(x, y);
}

/**
 * `value`, a body already checked ({@link assertBody}), as decoding its encoding gives it back:
 * a new value sharing nothing with it, -0 as 0 (it encodes as the integer), byte strings as
 * plain `Uint8Array`s, and each object's keys in the encoding's order (JavaScript still lists
 * integer-like keys first, as it does after decoding). A write answers with it rather than
 * decoding what it has just encoded: decoding strictly and checking again cost a `putMany` a
 * tenth of its time.
 */
export function copyBody(value: BodyValue): BodyValue {
  if (value === null || typeof value !== 'object') return Object.is(value, -0) ? 0 : value;
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (Array.isArray(value)) return value.map((item) => copyBody(item));
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort(keyOrder);
  const out: { [key: string]: BodyValue } = {};
  for (const key of keys) out[key] = copyBody(value[key]!);
  return out;
}
