/**
 * Deterministic CBOR (RFC 8949 §4.2.1) for what minca encodes on every write — bodies, index
 * entries, the store's summary — in one pass into one buffer, without cborg's tokens: null,
 * booleans, safe integers, text, byte strings, arrays and plain objects with ASCII keys. It
 * gives up (`undefined`) at anything else (a float, -0, a non-ASCII key, a lone surrogate,
 * undefined, another kind of object, deep nesting), and the caller encodes with cborg: the
 * bytes are cborg's either way, which the tests check on random values.
 */

import { utf8 } from './bytes.js';

const MAX_DEPTH = 64;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether every character of `s` is ASCII (one UTF-8 byte each). */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Thrown inside to give up; never leaves this module. */
const GIVE_UP = Symbol('give up');

/** Orders keys as RFC 8949 orders their encodings: ASCII text by length, then by character. */
export const byEncoding = (a: string, b: string) =>
  a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/**
 * Sorts keys by {@link byEncoding}: a few by insertion, in place, since `Array.prototype.sort`
 * allocates its own state for every call, and every write encodes a few small maps.
 */
function sortKeys(keys: string[]): void {
  if (keys.length > 16) {
    keys.sort(byEncoding);
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && byEncoding(keys[j]!, key) > 0; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
}

class Writer {
  buf = new Uint8Array(1024);
  at = 0;

  reserve(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
  }

  /** A head: major type and argument, in the shortest form. */
  head(major: number, n: number): void {
    this.reserve(9);
    const b = this.buf;
    const m = major << 5;
    if (n < 24) b[this.at++] = m | n;
    else if (n < 0x100) {
      b[this.at++] = m | 24;
      b[this.at++] = n;
    } else if (n < 0x10000) {
      b[this.at++] = m | 25;
      b[this.at++] = n >>> 8;
      b[this.at++] = n & 0xff;
    } else if (n < 0x100000000) {
      b[this.at++] = m | 26;
      b[this.at++] = n >>> 24;
      b[this.at++] = (n >>> 16) & 0xff;
      b[this.at++] = (n >>> 8) & 0xff;
      b[this.at++] = n & 0xff;
    } else {
      b[this.at++] = m | 27;
      const hi = Math.floor(n / 0x100000000);
      const lo = n >>> 0;
      for (const word of [hi, lo]) {
        b[this.at++] = word >>> 24;
        b[this.at++] = (word >>> 16) & 0xff;
        b[this.at++] = (word >>> 8) & 0xff;
        b[this.at++] = word & 0xff;
      }
    }
  }

  bytes(major: number, bytes: Uint8Array): void {
    this.head(major, bytes.length);
    this.reserve(bytes.length);
    this.buf.set(bytes, this.at);
    this.at += bytes.length;
  }

  text(s: string): void {
    // ASCII, the usual case, is copied a character a byte; else UTF-8 from the platform.
    const n = s.length;
    if (!isAscii(s)) {
      if (LONE_SURROGATE.test(s)) throw GIVE_UP;
      this.bytes(3, utf8(s));
      return;
    }
    this.head(3, n);
    this.reserve(n);
    const b = this.buf;
    for (let i = 0; i < n; i++) b[this.at++] = s.charCodeAt(i);
  }

  value(v: unknown, depth: number): void {
    if (v === null) {
      this.byte(0xf6);
      return;
    }
    switch (typeof v) {
      case 'boolean':
        this.byte(v ? 0xf5 : 0xf4);
        return;
      case 'number':
        if (!Number.isSafeInteger(v) || Object.is(v, -0)) throw GIVE_UP;
        if (v >= 0) this.head(0, v);
        else this.head(1, -1 - v);
        return;
      case 'string':
        this.text(v);
        return;
      case 'object':
        break;
      default:
        throw GIVE_UP;
    }
    if (depth >= MAX_DEPTH) throw GIVE_UP;
    if (v instanceof Uint8Array) {
      if (v.constructor !== Uint8Array && !isBuffer(v)) throw GIVE_UP;
      this.bytes(2, v);
      return;
    }
    if (Array.isArray(v)) {
      this.head(4, v.length);
      for (let i = 0; i < v.length; i++) this.value(v[i], depth + 1);
      return;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) throw GIVE_UP;
    const keys = Object.keys(v as object);
    for (const key of keys) if (!isAscii(key)) throw GIVE_UP;
    sortKeys(keys);
    this.head(5, keys.length);
    for (const key of keys) {
      const item = (v as Record<string, unknown>)[key];
      if (item === undefined) throw GIVE_UP;
      this.text(key);
      this.value(item, depth + 1);
    }
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.at++] = b;
  }
}

/** A Node Buffer (a Uint8Array subclass cborg encodes as bytes too). */
const isBuffer = (v: Uint8Array) => v.constructor?.name === 'Buffer';

/** One writer, reused: encoding is synchronous. */
const writer = new Writer();

/** `value` as deterministic CBOR, or `undefined` where it holds something this leaves to cborg. */
export function encodeFast(value: unknown): Uint8Array | undefined {
  writer.at = 0;
  let out: Uint8Array | undefined;
  try {
    writer.value(value, 0);
    out = writer.buf.slice(0, writer.at);
  } catch (e) {
    if (e !== GIVE_UP) throw e;
  }
  // A writer grown for one large value doesn't keep its memory.
  if (writer.buf.length > 64 * 1024) writer.buf = new Uint8Array(1024);
  return out;
}
