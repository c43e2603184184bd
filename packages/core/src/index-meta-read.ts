/**
 * An index entry read straight from its bytes when they are exactly what `encodeMeta` writes
 * (spec 05 §5.2): the map `{a, d, f, p, r, t}` in canonical CBOR, ASCII text, fewer than 24
 * ids in each list. Listing a large collection reads every entry, and this reads one in a
 * single pass without cborg's tokens. Anything else — another shape, a longer list, non-ASCII
 * text, any non-shortest head — gives `undefined`, and the entry is decoded strictly instead;
 * what this accepts, the strict decoder gives the same way, which the tests check.
 */
import { latin1 } from './bytes.js';

/** The entry's fields as the strict decoder would give them. */
export interface RawMeta {
  a: string;
  d: boolean;
  f: Uint8Array[];
  p: Uint8Array[];
  r: string;
  t: number;
}

/** The most bytes an index entry may take (what `decodeMeta` gives the strict decoder). */
export const MAX_META_BYTES = 16 * 1024;

const KEYS = [0x61, 0x64, 0x66, 0x70, 0x72, 0x74]; // a d f p r t

/** The canonical entry of `bytes`, or `undefined` where it is not in the one form read here. */
export function readMetaFast(bytes: Uint8Array): RawMeta | undefined {
  // Past the strict decoder's bound for an entry, it refuses: so does this, by leaving it.
  if (bytes.length > MAX_META_BYTES) return undefined;
  let at = 0;
  const end = bytes.length;
  // A key: text of one ASCII letter.
  const key = (letter: number) => {
    if (at + 2 > end || bytes[at] !== 0x61 || bytes[at + 1] !== letter) return false;
    at += 2;
    return true;
  };
  /** An argument of major type `major` in its shortest form, or -1. */
  const arg = (major: number): number => {
    if (at >= end) return -1;
    const b = bytes[at++]!;
    if (b >> 5 !== major) return -1;
    const info = b & 31;
    if (info < 24) return info;
    if (info === 24) {
      if (at + 1 > end) return -1;
      const n = bytes[at++]!;
      return n >= 24 ? n : -1;
    }
    if (info === 25) {
      if (at + 2 > end) return -1;
      const n = (bytes[at]! << 8) | bytes[at + 1]!;
      at += 2;
      return n >= 0x100 ? n : -1;
    }
    if (info === 26) {
      if (at + 4 > end) return -1;
      const n =
        bytes[at]! * 0x1000000 + ((bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!);
      at += 4;
      return n >= 0x10000 ? n : -1;
    }
    if (info === 27) {
      if (at + 8 > end) return -1;
      const hi =
        bytes[at]! * 0x1000000 + ((bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!);
      const lo =
        bytes[at + 4]! * 0x1000000 +
        ((bytes[at + 5]! << 16) | (bytes[at + 6]! << 8) | bytes[at + 7]!);
      at += 8;
      const n = hi * 0x100000000 + lo;
      return hi > 0 && Number.isSafeInteger(n) ? n : -1;
    }
    return -1;
  };
  const ascii = (): string | undefined => {
    const n = arg(3);
    if (n < 0 || at + n > end) return undefined;
    for (let i = at; i < at + n; i++) if (bytes[i]! > 0x7f) return undefined;
    const s = latin1(bytes.subarray(at, at + n));
    at += n;
    return s;
  };
  const ids = (): Uint8Array[] | undefined => {
    if (at >= end) return undefined;
    const head = bytes[at++]!;
    // An array of fewer than 24, each a byte string of 32 (0x58 0x20).
    if (head >> 5 !== 4 || (head & 31) >= 24) return undefined;
    const out: Uint8Array[] = [];
    for (let i = head & 31; i > 0; i--) {
      if (at + 34 > end || bytes[at] !== 0x58 || bytes[at + 1] !== 0x20) return undefined;
      out.push(bytes.subarray(at + 2, at + 34));
      at += 34;
    }
    return out;
  };
  if (bytes[at++] !== 0xa6 || !key(KEYS[0]!)) return undefined;
  const a = ascii();
  if (a === undefined || !key(KEYS[1]!) || at >= end) return undefined;
  const flag = bytes[at++];
  if (flag !== 0xf4 && flag !== 0xf5) return undefined;
  if (!key(KEYS[2]!)) return undefined;
  const f = ids();
  if (!f || !key(KEYS[3]!)) return undefined;
  const p = ids();
  if (!p || !key(KEYS[4]!)) return undefined;
  const r = ascii();
  if (r === undefined || !key(KEYS[5]!)) return undefined;
  const t = arg(0);
  if (t < 0 || at !== end) return undefined;
  return { a, d: flag === 0xf5, f, p, r, t };
}
