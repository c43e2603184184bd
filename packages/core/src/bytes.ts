/** Small byte helpers used across core. */
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { MincaError } from './errors.js';

/** The two ASCII codes of each byte's hex. */
const HEX_CODES = new Uint8Array(512);
for (let i = 0; i < 256; i++) {
  HEX_CODES[2 * i] = '0123456789abcdef'.charCodeAt(i >> 4);
  HEX_CODES[2 * i + 1] = '0123456789abcdef'.charCodeAt(i & 15);
}
/** Arguments per `String.fromCharCode` call, well under every engine's limit. */
const CODES_PER_CALL = 8192;

/** The string of UTF-16 code units `codes`, flat: `fromCharCode` and `join` build in one piece. */
function fromCodes(codes: Uint8Array | Uint16Array): string {
  if (codes.length <= CODES_PER_CALL) return String.fromCharCode.apply(null, codes as never);
  const parts: string[] = [];
  for (let i = 0; i < codes.length; i += CODES_PER_CALL)
    parts.push(String.fromCharCode.apply(null, codes.subarray(i, i + CODES_PER_CALL) as never));
  return parts.join('');
}

/**
 * `bytes` as a string of one character per byte (Latin-1): a cheap Map key for bytes (a public
 * key, a signature), and ASCII text as it is.
 */
export const latin1 = (bytes: Uint8Array): string => fromCodes(bytes);

/**
 * Lowercase hex, as one flat string. Ids are kept by the million, and a string built by
 * concatenation (as most hex helpers do) costs V8 a node per piece: several times the bytes.
 */
export function toHex(bytes: Uint8Array): string {
  const codes = new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    codes[2 * i] = HEX_CODES[2 * bytes[i]!]!;
    codes[2 * i + 1] = HEX_CODES[2 * bytes[i]! + 1]!;
  }
  return fromCodes(codes);
}

/** `parts` back to back in one buffer of their own, and where each ends in it. */
export function packParts(parts: readonly Uint8Array[]): {
  bytes: Uint8Array<ArrayBuffer>;
  ends: Uint32Array<ArrayBuffer>;
} {
  let length = 0;
  for (const part of parts) length += part.length;
  const bytes = new Uint8Array(length);
  const ends = new Uint32Array(parts.length);
  let at = 0;
  parts.forEach((part, i) => {
    bytes.set(part, at);
    ends[i] = at += part.length;
  });
  return { bytes, ends };
}

/**
 * Runs `use` on each of the first `count` pairs {@link packParts} packed (`first`, `second`
 * back to back, `ends` two per pair), as views of `bytes`.
 */
export function eachPair(
  bytes: Uint8Array,
  ends: Uint32Array,
  count: number,
  use: (i: number, first: Uint8Array, second: Uint8Array) => void,
): void {
  let start = 0;
  for (let i = 0; i < count; i++) {
    use(i, bytes.subarray(start, ends[2 * i]), bytes.subarray(ends[2 * i], ends[2 * i + 1]));
    start = ends[2 * i + 1]!;
  }
}

/**
 * A function putting `a ‖ b` together in a buffer of its own, kept and grown as needed: for
 * bytes built on every seal or open and read at once by a synchronous call that keeps none of
 * them, where a new buffer each time (an array buffer of its own) costs more than the copy. The
 * view it gives is good until its next call.
 */
export function scratchConcat(initial = 512): (a: Uint8Array, b: Uint8Array) => Uint8Array {
  let scratch = new Uint8Array(initial);
  return (a, b) => {
    const length = a.length + b.length;
    if (scratch.length < length) scratch = new Uint8Array(Math.max(length, 2 * scratch.length));
    scratch.set(a);
    scratch.set(b, a.length);
    return scratch.subarray(0, length);
  };
}

/**
 * `s` as one flat string of its own, for strings kept long: a decoder's string built piece by
 * piece, or a slice that would keep its whole parent alive, costs far more than its characters.
 */
export function flatString(s: string): string {
  // Latin-1 goes through bytes, so the engine keeps one byte per character, not two.
  let wide = false;
  for (let i = 0; i < s.length && !wide; i++) wide = s.charCodeAt(i) > 0xff;
  const codes = wide ? new Uint16Array(s.length) : new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) codes[i] = s.charCodeAt(i);
  return fromCodes(codes);
}

/** A lowercase hex digit's value, else -1. */
const nibble = (c: number) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1);

/**
 * Parses lowercase hex; anything else is `malformed`. Checked and decoded in one pass: the
 * intake parses several ids a version, and a pattern test then a decoder cost twice this.
 */
export function fromHex(hex: string): Uint8Array {
  if (typeof hex !== 'string' || hex.length % 2 !== 0) malformedHex();
  return fromHexInto(hex, new Uint8Array(hex.length / 2));
}

/**
 * The big-endian word of hex digits `[at, at + 8)` of `hex`, or -1 where one is not lowercase
 * hex: for a lookup by an id's first bytes without decoding the rest.
 */
export function hexWord(hex: string, at: number): number {
  let word = 0;
  for (let i = at; i < at + 8; i++) {
    const n = nibble(hex.charCodeAt(i));
    if (n < 0) return -1;
    word = (word << 4) | n;
  }
  return word >>> 0;
}

/** {@link fromHex} into `out`, which is as long as `hex` says, for a lookup's scratch bytes. */
export function fromHexInto(hex: string, out: Uint8Array): Uint8Array {
  if (typeof hex !== 'string' || hex.length !== 2 * out.length) malformedHex();
  for (let i = 0; i < out.length; i++) {
    const high = nibble(hex.charCodeAt(2 * i));
    const low = nibble(hex.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) malformedHex();
    out[i] = (high << 4) | low;
  }
  return out;
}

function malformedHex(): never {
  throw new MincaError('malformed', 'expected lowercase hex');
}

/** Orders bytes lexicographically, as Negentropy and sorted ids need. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && compareBytes(a, b) === 0;
}

export { utf8ToBytes as utf8 };
