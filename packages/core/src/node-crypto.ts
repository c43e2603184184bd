/**
 * `node:crypto` (Node, Bun, Deno) as a node's {@link PlatformCrypto}: handed in, never
 * imported, so core still runs where there is none. Its synchronous Ed25519 signs about four
 * times as fast as WebCrypto one message at a time, which is what puts made one after another
 * wait for.
 *
 * ```ts
 * import * as crypto from 'node:crypto';
 * const node = await createNode({ stores, crypto: nodeCrypto(crypto) });
 * ```
 */
import { base64urlnopad } from '@scure/base';
import type { PlatformCrypto } from './keys.js';

/** The part of `node:crypto` this uses. */
export interface NodeCryptoModule {
  createPrivateKey(input: {
    key: { kty: string; crv: string; d: string; x: string };
    format: 'jwk';
  }): unknown;
  sign(algorithm: null, data: Uint8Array, key: never): Uint8Array;
}

/** Ed25519 through `node:crypto`'s synchronous `sign`. Pass it as `NodeConfig.crypto`. */
export function nodeCrypto(crypto: NodeCryptoModule): PlatformCrypto {
  return {
    ed25519Signer(secret, publicKey) {
      const b64 = (bytes: Uint8Array) => base64urlnopad.encode(bytes);
      // JWK: the one private key format without ASN.1 framing.
      const key = crypto.createPrivateKey({
        key: { kty: 'OKP', crv: 'Ed25519', d: b64(secret), x: b64(publicKey) },
        format: 'jwk',
      });
      // A plain Uint8Array of its own, not a Node Buffer.
      return (message) => new Uint8Array(crypto.sign(null, message, key as never));
    },
  };
}
