/**
 * What a record body may hold: JSON's values plus byte strings, so it encodes the same way
 * everywhere. Checked before a body is written and after one is read.
 */
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

/** Throws `invalid_input` naming the first part of `value` that a body can't hold. */
export function assertBody(value: unknown, path = 'body', depth = 0): asserts value is BodyValue {
  const fail = (why: string): never => {
    throw new MincaError('invalid_input', `${path} ${why}`);
  };
  if (value === null || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail('is not a finite number');
    return;
  }
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) fail('holds a lone surrogate, which UTF-8 cannot encode');
    return;
  }
  if (value instanceof Uint8Array) return;
  if (typeof value !== 'object') fail(`is a ${typeof value}, which a body cannot hold`);
  if (depth >= MAX_BODY_DEPTH) fail(`nests deeper than ${MAX_BODY_DEPTH}`);
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      assertBody(item, `${path}[${i}]`, depth + 1);
    });
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) fail('is not a plain object');
  for (const [key, item] of Object.entries(value as object)) {
    if (key === '__proto__') fail('has a key "__proto__"');
    if (item === undefined) fail(`.${key} is undefined; leave the key out instead`);
    assertBody(item, `${path}.${key}`, depth + 1);
  }
}
