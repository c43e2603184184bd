/**
 * What the two keys of a handshake sign (spec 05 §8, §7.3): the node's key proves its DID, and a
 * member's space access key proves it has a space, each bound to both DIDs and both nonces so a
 * signature can't be replayed on another connection or to another peer.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeCbor } from '../encoding.js';

const HANDSHAKE_CONTEXT = 'minca/handshake/v1';
const PROOF_CONTEXT = 'minca/access/v1';
const PROBE_CONTEXT = 'minca/probe/v1';
/** Bytes of a probe. */
export const PROBE_BYTES = 16;

/** What `signer` signs in its `auth`: `CBOR(["minca/handshake/v1", signer, other, other's nonce, signer's nonce])`. */
export function handshakeBytes(
  signer: string,
  other: string,
  otherNonce: Uint8Array,
  signerNonce: Uint8Array,
): Uint8Array {
  return encodeCbor([HANDSHAKE_CONTEXT, signer, other, otherNonce, signerNonce]);
}

/** What a space's access key signs to prove the space to a holder (spec 05 §7.3). */
export function accessProofBytes(
  space: string,
  signer: string,
  other: string,
  otherNonce: Uint8Array,
  signerNonce: Uint8Array,
): Uint8Array {
  return encodeCbor([PROOF_CONTEXT, space, signer, other, otherNonce, signerNonce]);
}

/**
 * A probe: that `signer` has space `space`, for `other` only, on this connection alone — the
 * first 16 bytes of `HMAC-SHA256(probe key, CBOR(["minca/probe/v1", space, signer, other,
 * other's nonce, signer's nonce]))`. Only a member (who has the key) can make or match one.
 */
export function spaceProbe(
  probeKey: Uint8Array,
  space: string,
  signer: string,
  other: string,
  otherNonce: Uint8Array,
  signerNonce: Uint8Array,
): Uint8Array {
  const message = encodeCbor([PROBE_CONTEXT, space, signer, other, otherNonce, signerNonce]);
  return hmac(sha256, probeKey, message).subarray(0, PROBE_BYTES);
}
