/**
 * Ids: version ids are SHA-256 of a version's encoding; space and record ids are random.
 */
import { randomBytes } from '@noble/ciphers/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base32nopad } from '@scure/base';

export const ID_BYTES = 32;

/** SHA-256 of `bytes`: the 32-byte content id minca uses everywhere. */
export function hashId(bytes: Uint8Array): Uint8Array {
  return sha256(bytes);
}

/** A random id of 16 bytes as 26 lowercase base32 characters, for spaces and records. */
export function randomId(): string {
  return base32nopad.encode(randomBytes(16)).toLowerCase();
}

/** Space ids are what {@link randomId} makes. */
export const SPACE_ID = /^[a-z2-7]{26}$/;

/** Record ids: what {@link randomId} makes, or an app's own name such as `profile`. */
export const RECORD_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A version id as hex, the form stores and logs use. */
export const VERSION_HEX = /^[0-9a-f]{64}$/;
