/**
 * Fingerprint of a range from its id sum. The rule itself (SHA-256 of the little-endian sum and
 * the varint count, first 16 bytes) lives in one place, `IdSum.fingerprint`: a sum over one
 * "id" equal to the range's sum hashes exactly like the range.
 */
import { IdSum } from '../id-sum.js';

/** `sumLE` is the 32-byte little-endian sum mod 2^256 of `count` ids. */
export function fingerprintOfSum(sumLE: Uint8Array, count: number): Uint8Array {
  const sum = new IdSum();
  sum.add(sumLE);
  sum.count = count;
  return sum.fingerprint();
}
