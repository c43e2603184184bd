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

/** A part of a body being checked, and where it is: named only if it is at fault. */
interface Part {
  value: unknown;
  parent: Part | undefined;
  /** Its index in its parent array, or its key in its parent object. */
  key: number | string;
  depth: number;
}

/** The path of `part` from the body's `root`: `body.tags[2]`. */
function pathOf(part: Part, root: string): string {
  let path = '';
  for (let p: Part | undefined = part; p?.parent; p = p.parent)
    path = (typeof p.key === 'number' ? `[${p.key}]` : `.${p.key}`) + path;
  return root + path;
}

/**
 * Throws `invalid_input` naming the first part of `value` that a body can't hold (a value of
 * another kind, nesting deeper than {@link MAX_BODY_DEPTH}), or `too_large` once it holds more
 * than {@link MAX_BODY_BYTES} even at the fewest bytes each part could encode to. It walks the
 * value with a stack of its own, never recursing, and stops at the first fault, so a body nested
 * 100,000 deep or holding millions of items costs no more than the part read before the fault.
 * A part's path is put together only for the fault: every body read is checked.
 */
export function assertBody(value: unknown, path = 'body', depth = 0): asserts value is BodyValue {
  // Depth first, in the order a reader would name things: the first fault found is the first one.
  const stack: Part[] = [{ value, parent: undefined, key: '', depth }];
  // A lower bound of the encoded size: each item takes at least its head byte, and text and
  // bytes at least one byte per code unit or byte.
  let bytes = 0;
  // An object's items as they were read, once, to push after its keys are checked (reused).
  const items: unknown[] = [];
  const fail = (at: Part, why: string, code: 'invalid_input' | 'too_large' = 'invalid_input') => {
    throw new MincaError(code, `${pathOf(at, path)} ${why}`);
  };
  const count = (n: number, at: Part) => {
    bytes += n;
    // `too_large`, as a body that encodes past the bound is (version.ts): found sooner here.
    if (bytes > MAX_BODY_BYTES)
      fail(
        at,
        `makes the body larger than ${MAX_BODY_BYTES} bytes; put large things in a file`,
        'too_large',
      );
  };
  for (let part = stack.pop(); part !== undefined; part = stack.pop()) {
    const { value: v, depth: d } = part;
    count(1, part);
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) fail(part, 'is not a finite number');
      continue;
    }
    if (typeof v === 'string') {
      count(v.length, part);
      if (LONE_SURROGATE.test(v)) fail(part, 'holds a lone surrogate, which UTF-8 cannot encode');
      continue;
    }
    if (v instanceof Uint8Array) {
      count(v.length, part);
      continue;
    }
    if (typeof v !== 'object') fail(part, `is a ${typeof v}, which a body cannot hold`);
    if (d >= MAX_BODY_DEPTH) fail(part, `nests deeper than ${MAX_BODY_DEPTH}`);
    // Children are pushed last to first, so the first child is looked at first.
    if (Array.isArray(v)) {
      count(v.length, part);
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], parent: part, key: i, depth: d + 1 });
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) fail(part, 'is not a plain object');
    const keys = Object.keys(v as object);
    for (const key of keys) {
      if (key === '__proto__') fail(part, 'has a key "__proto__"');
      // Read once: a getter could answer otherwise the second time.
      const item = (v as Record<string, unknown>)[key];
      if (item === undefined) fail(part, `.${key} is undefined; leave the key out instead`);
      count(1 + key.length, part);
      items.push(item);
    }
    for (let i = keys.length - 1; i >= 0; i--)
      stack.push({ value: items[i], parent: part, key: keys[i]!, depth: d + 1 });
    items.length = 0;
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
