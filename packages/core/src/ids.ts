/**
 * Ids: version ids are SHA-256 of a version's encoding; space ids are random, record ids the
 * time and random bits.
 */
import { latin1 } from './bytes.js';
import { sha256, sha256Hex } from './primitives.js';
import { pooledRandom } from './random.js';

export const ID_BYTES = 32;

/** SHA-256 of `bytes`: the 32-byte content id minca uses everywhere. */
export function hashId(bytes: Uint8Array): Uint8Array {
  return sha256(bytes);
}

/** {@link hashId} as 64 lowercase hex characters: a version's id. */
export function hashIdHex(bytes: Uint8Array): string {
  return sha256Hex(bytes);
}

/** A random id of 16 bytes as 26 lowercase base32 characters, for spaces and writers. */
export function randomId(): string {
  return base32(pooledRandom(16), BASE32);
}

/**
 * A new record's id, 26 characters: the time `at` (ms, 48 bits) and then 80 random bits, in
 * an alphabet in ASCII order, so a record made later sorts later. A store's index is keyed by
 * record, so records made over time are appended to it rather than scattered through it —
 * what a B-tree (SQLite's, IndexedDB's) writes fastest. The time says nothing a holder can't
 * already read: it is about the record's first version's timestamp.
 */
export function newRecordId(at: number): string {
  return newRecordIds(at, 1)[0]!;
}

/**
 * `count` new record ids for records written together at `at`, in the order they are written:
 * the first as {@link newRecordId} makes one, each next one its random part plus one, so they
 * sort in that order too. Written at once, they land together at the end of a store's index
 * (here and on every device that takes them in, in that order) instead of each on a page of its
 * own. The ids of one write follow from each other, but are all written in one commit: none can
 * be taken before it lands.
 */
export function newRecordIds(at: number, count: number): string[] {
  const bytes = pooledRandom(16);
  let time = Math.max(0, Math.min(Math.floor(at), 2 ** 48 - 1));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256;
    time = Math.floor(time / 256);
  }
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    if (n > 0 && !increment(bytes, 6)) bytes.set(pooledRandom(10), 6);
    out.push(base32(bytes, SORTED_BASE32));
  }
  return out;
}

/** Adds one to `bytes[from..]` as a big-endian number; false when it wraps to zero. */
function increment(bytes: Uint8Array, from: number): boolean {
  for (let i = bytes.length - 1; i >= from; i--) {
    bytes[i] = (bytes[i]! + 1) & 0xff;
    if (bytes[i] !== 0) return true;
  }
  return false;
}

/** `bytes` as base32 (5 bits a character, the last one's low bits zero) in `alphabet`. */
function base32(bytes: Uint8Array, alphabet: string): string {
  // Character codes gathered, then one flat string: a string grown a character at a time left
  // a chain of pieces behind each id (over a kilobyte a put).
  const codes = new Uint8Array(Math.ceil((8 * bytes.length) / 5));
  let n = 0;
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      codes[n++] = alphabet.charCodeAt((value >>> (bits - 5)) & 31);
      bits -= 5;
    }
  }
  if (bits > 0) codes[n++] = alphabet.charCodeAt((value << (5 - bits)) & 31);
  return latin1(codes);
}

/** RFC 4648 base32, lowercase, no padding. */
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** Crockford's base32 alphabet, lowercase: its characters are in ASCII order. */
const SORTED_BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';

/** Space ids are what {@link randomId} makes. */
export const SPACE_ID = /^[a-z2-7]{26}$/;

/** Record ids: what {@link newRecordId} makes, or an app's own name such as `profile`. */
export const RECORD_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A version id as hex, the form stores and logs use. */
export const VERSION_HEX = /^[0-9a-f]{64}$/;
