/** Small byte helpers used across core. */
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { MincaError } from './errors.js';

export { bytesToHex as toHex };

const HEX = /^(?:[0-9a-f]{2})*$/;

/** Parses lowercase hex; anything else is `malformed`. */
export function fromHex(hex: string): Uint8Array {
  if (typeof hex !== 'string' || !HEX.test(hex)) {
    throw new MincaError('malformed', 'expected lowercase hex');
  }
  return hexToBytes(hex);
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
