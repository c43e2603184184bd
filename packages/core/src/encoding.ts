/**
 * Deterministic CBOR (RFC 8949 §4.2.1: shortest forms, map keys sorted bytewise), through cborg.
 * Everything minca hashes or signs is encoded here, so the same value always gives the same bytes.
 * Decoding bytes from outside is strict and bounded: see {@link decodeStrict}.
 */
import { decode, encode, rfc8949EncodeOptions } from 'cborg';
import { byEncoding, encodeFast, isAscii } from './cbor-fast.js';
import { MincaError } from './errors.js';

/** Limits on what {@link decodeStrict} accepts. */
export interface DecodeLimits {
  /** Largest input, in bytes. */
  maxBytes: number;
  /** Deepest nesting of arrays and maps. */
  maxDepth: number;
}

export const DEFAULT_DECODE_LIMITS: DecodeLimits = { maxBytes: 4 * 1024 * 1024, maxDepth: 32 };

const DECODE_OPTIONS = {
  strict: true,
  allowIndefinite: false,
  allowUndefined: false,
  allowInfinity: false,
  allowNaN: false,
  allowBigInt: false,
  rejectDuplicateMapKeys: true,
  useMaps: false,
  tags: [],
};

/** A map key as cborg's encoder hands it to a map sorter: a token with its major type and value. */
type KeyEntry = [{ type: { major: number }; value: unknown }, unknown];

/**
 * RFC 8949's key order without encoding each key for each comparison, for the keys bodies and
 * index entries almost always have: ASCII text, whose encodings order by length, then by
 * characters (a text's head grows with its length; ASCII's UTF-8 bytes are its characters).
 * Anything else is compared as cborg does, by the encoded bytes.
 */
function mapSorter(a: KeyEntry, b: KeyEntry): number {
  const x = a[0];
  const y = b[0];
  if (
    x.type?.major === 3 &&
    y.type?.major === 3 &&
    typeof x.value === 'string' &&
    typeof y.value === 'string' &&
    isAscii(x.value) &&
    isAscii(y.value)
  )
    return byEncoding(x.value, y.value);
  return (rfc8949EncodeOptions.mapSorter as unknown as (a: KeyEntry, b: KeyEntry) => number)(a, b);
}

const ENCODE_OPTIONS = { ...rfc8949EncodeOptions, mapSorter };

/** Encodes `value` as deterministic CBOR. Throws `invalid_input` for what CBOR can't hold here. */
export function encodeCbor(value: unknown): Uint8Array {
  // The values written most, in one pass; cborg for the rest (the same bytes either way).
  const fast = encodeFast(value);
  if (fast) return fast;
  try {
    const bytes = encode(value, ENCODE_OPTIONS as typeof rfc8949EncodeOptions);
    // cborg may hand back a Node Buffer, a view into a shared pool: give a plain Uint8Array.
    return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes);
  } catch (cause) {
    throw new MincaError('invalid_input', `value cannot be encoded: ${String(cause)}`, { cause });
  }
}

/**
 * Decodes one CBOR value from outside. Rejects input over `limits`, trailing bytes, indefinite
 * lengths, undefined, NaN, bigints, tags, duplicate map keys and non-shortest encodings, each as
 * `MincaError('malformed')`.
 */
export function decodeStrict(
  bytes: Uint8Array,
  limits: DecodeLimits = DEFAULT_DECODE_LIMITS,
): unknown {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('bytes must be a Uint8Array');
  if (bytes.length > limits.maxBytes) {
    throw new MincaError(
      'malformed',
      `CBOR input of ${bytes.length} bytes is over ${limits.maxBytes}`,
    );
  }
  let value: unknown;
  try {
    value = decode(bytes, DECODE_OPTIONS);
  } catch (cause) {
    // Includes a RangeError from nesting deep enough to exhaust the stack.
    throw new MincaError('malformed', `invalid CBOR: ${(cause as Error).message}`, { cause });
  }
  if (depthOf(value, limits.maxDepth) > limits.maxDepth) {
    throw new MincaError('malformed', `CBOR nesting is deeper than ${limits.maxDepth}`);
  }
  return value;
}

/** Nesting depth of arrays and maps in `value`, counting stops once past `stop`. */
function depthOf(value: unknown, stop: number, depth = 0): number {
  if (depth > stop || value === null || typeof value !== 'object' || value instanceof Uint8Array) {
    return depth;
  }
  let deepest = depth + 1;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    deepest = Math.max(deepest, depthOf(child, stop, depth + 1));
    if (deepest > stop) break;
  }
  return deepest;
}
