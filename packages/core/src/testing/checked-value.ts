/**
 * Self-checking values for crash tests: a value an interrupted write tore (cut short, mixed
 * with an older value, zero-filled) no longer checks.
 *
 * Layout: `"MCV1"` ‖ payload ‖ the first 8 bytes of SHA-256("MCV1" ‖ payload).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { sampleBytes } from './sample-bytes.js';

const MAGIC = [0x4d, 0x43, 0x56, 0x31]; // "MCV1"
const CHECK_BYTES = 8;
/** The smallest checked value: magic and check, no payload. */
export const MIN_CHECKED_VALUE = MAGIC.length + CHECK_BYTES;

function seedNumber(seed: string, size: number): number {
  const h = sha256(utf8ToBytes(`${size}:${seed}`));
  return ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
}

/** The value format crash tests write, so a torn value is detected: a self-checking value of `size` bytes derived from `seed`. */
export function makeCheckedValue(seed: string, size: number): Uint8Array {
  if (typeof seed !== 'string') throw new TypeError('seed must be a string');
  if (!Number.isSafeInteger(size) || size < MIN_CHECKED_VALUE) {
    throw new RangeError(`size must be an integer of at least ${MIN_CHECKED_VALUE}`);
  }
  const out = new Uint8Array(size);
  out.set(MAGIC);
  out.set(sampleBytes(seedNumber(seed, size), size - MIN_CHECKED_VALUE), MAGIC.length);
  out.set(sha256(out.subarray(0, size - CHECK_BYTES)).subarray(0, CHECK_BYTES), size - CHECK_BYTES);
  return out;
}

/** True when `value` is a whole value {@link makeCheckedValue} made. */
export function isCheckedValue(value: Uint8Array): boolean {
  if (!(value instanceof Uint8Array) || value.length < MIN_CHECKED_VALUE) return false;
  if (MAGIC.some((byte, i) => value[i] !== byte)) return false;
  const end = value.length - CHECK_BYTES;
  const check = sha256(value.subarray(0, end));
  for (let i = 0; i < CHECK_BYTES; i++) if (value[end + i] !== check[i]) return false;
  return true;
}
