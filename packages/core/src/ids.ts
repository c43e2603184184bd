/**
 * Ids: version ids are SHA-256 of a version's encoding; space and record ids are random.
 */
import { flatString } from './bytes.js';
import { sha256 } from './primitives.js';
import { pooledRandom } from './random.js';

export const ID_BYTES = 32;

/** SHA-256 of `bytes`: the 32-byte content id minca uses everywhere. */
export function hashId(bytes: Uint8Array): Uint8Array {
  return sha256(bytes);
}

/** A random id of 16 bytes as 26 lowercase base32 characters, for spaces and records. */
export function randomId(): string {
  const bytes = pooledRandom(16);
  // RFC 4648 base32, lowercase, no padding: 5 bits a character, the last one's low bits zero.
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return flatString(out + BASE32[(value << (5 - bits)) & 31]);
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Space ids are what {@link randomId} makes. */
export const SPACE_ID = /^[a-z2-7]{26}$/;

/** Record ids: what {@link randomId} makes, or an app's own name such as `profile`. */
export const RECORD_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A version id as hex, the form stores and logs use. */
export const VERSION_HEX = /^[0-9a-f]{64}$/;
