/**
 * The space access key: an Ed25519 key every member derives from the space key, so a member can
 * prove to a holder (a host or carrier without the space key) that it has the space, without
 * showing the key (what it signs is in `sync/handshake.ts`). Spec 05 §7.3.
 */
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8 } from '../bytes.js';
import { SigningKey } from '../keys.js';

const ACCESS_INFO = 'minca/space-access/v1';

/**
 * `Ed25519 key(seed = HKDF-SHA256(ikm = space key, salt = "", info = "minca/space-access/v1" ‖
 * space id, 32))`, signing as `like` does (through the node's platform) when given.
 */
export function spaceAccessKey(
  spaceId: string,
  spaceKey: Uint8Array,
  like?: SigningKey,
): SigningKey {
  const info = utf8(ACCESS_INFO + spaceId);
  const seed = hkdf(sha256, spaceKey, new Uint8Array(0), info, 32);
  return like ? like.like(seed) : SigningKey.fromSecret(seed);
}

const PROBE_INFO = 'minca/space-probe/v1';

/**
 * The key a member proves it has a space with to another member who may not know it yet,
 * without naming the space (spec 05 §8 "Probes"): `HKDF-SHA256(space key, "", info ‖ id, 32)`.
 */
export function spaceProbeKey(spaceId: string, spaceKey: Uint8Array): Uint8Array {
  return hkdf(sha256, spaceKey, new Uint8Array(0), utf8(PROBE_INFO + spaceId), 32);
}
