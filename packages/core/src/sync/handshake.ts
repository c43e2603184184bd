/**
 * What the two keys of a handshake sign (spec 05 §8, §7.3): the node's key proves its DID, and a
 * member's space access key proves it has a space, each bound to both DIDs and both nonces so a
 * signature can't be replayed on another connection or to another peer.
 */
import { encodeCbor } from '../encoding.js';

const HANDSHAKE_CONTEXT = 'minca/handshake/v1';
const PROOF_CONTEXT = 'minca/access/v1';

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
