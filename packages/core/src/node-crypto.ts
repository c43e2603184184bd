/**
 * `node:crypto` (Node, Bun, Deno) as a node's {@link PlatformCrypto}: handed in, never
 * imported, so core still runs where there is none. Its synchronous Ed25519 signs about four
 * times as fast as WebCrypto one message at a time, which is what puts made one after another
 * wait for; its SHA-256 and ChaCha20-Poly1305 (OpenSSL's) are two to three times @noble's.
 *
 * ```ts
 * import * as crypto from 'node:crypto';
 * const node = await createNode({ stores, crypto: nodeCrypto(crypto) });
 * ```
 */
import { base64urlnopad } from '@scure/base';
import type { PlatformAead, PlatformCrypto } from './keys.js';

/** What `createCipheriv` and `createDecipheriv` give for `chacha20-poly1305`. */
interface AeadStream {
  setAAD(aad: Uint8Array, options: { plaintextLength: number }): unknown;
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
}

/** The part of `node:crypto` this uses. */
export interface NodeCryptoModule {
  createPrivateKey(input: {
    key: { kty: string; crv: string; d: string; x: string };
    format: 'jwk';
  }): unknown;
  sign(algorithm: null, data: Uint8Array, key: never): Uint8Array;
  createPublicKey(input: { key: { kty: string; crv: string; x: string }; format: 'jwk' }): unknown;
  verify(
    algorithm: null,
    data: Uint8Array,
    key: never,
    signature: Uint8Array,
    callback: (error: Error | null, ok: boolean) => void,
  ): void;
  createHash(algorithm: 'sha256'): {
    update(data: Uint8Array): { digest(): Uint8Array };
  };
  createCipheriv(
    algorithm: 'chacha20-poly1305',
    key: Uint8Array,
    iv: Uint8Array,
    options: { authTagLength: 16 },
  ): AeadStream & { getAuthTag(): Uint8Array };
  createDecipheriv(
    algorithm: 'chacha20-poly1305',
    key: Uint8Array,
    iv: Uint8Array,
    options: { authTagLength: 16 },
  ): AeadStream & { setAuthTag(tag: Uint8Array): unknown };
}

/** `crypto.hash` (Node 20.12+, 21.7+): one call, no hash object. */
type OneShotHash = (algorithm: 'sha256', data: Uint8Array, encoding: 'buffer') => Uint8Array;

/** A Node Buffer's bytes copied into a plain Uint8Array of their own (a Buffer may share a pool). */
const plain = (bytes: Uint8Array) => new Uint8Array(bytes);

function aead(crypto: NodeCryptoModule): PlatformAead {
  const options = { authTagLength: 16 } as const;
  return {
    seal(key, nonce, plaintext, aad) {
      const cipher = crypto.createCipheriv('chacha20-poly1305', key, nonce, options);
      cipher.setAAD(aad, { plaintextLength: plaintext.length });
      const body = cipher.update(plaintext);
      const rest = cipher.final();
      const tag = cipher.getAuthTag();
      const out = new Uint8Array(body.length + rest.length + tag.length);
      out.set(body);
      out.set(rest, body.length);
      out.set(tag, body.length + rest.length);
      return out;
    },
    open(key, nonce, sealed, aad) {
      if (sealed.length < 16) return undefined;
      const length = sealed.length - 16;
      const decipher = crypto.createDecipheriv('chacha20-poly1305', key, nonce, options);
      decipher.setAuthTag(sealed.subarray(length));
      decipher.setAAD(aad, { plaintextLength: length });
      const body = decipher.update(sealed.subarray(0, length));
      try {
        decipher.final();
      } catch {
        return undefined; // The tag does not match.
      }
      return plain(body);
    },
  };
}

/** Ed25519, SHA-256 and ChaCha20-Poly1305 through `node:crypto`. Pass it as `NodeConfig.crypto`. */
export function nodeCrypto(crypto: NodeCryptoModule): PlatformCrypto {
  const hash = (crypto as { hash?: OneShotHash }).hash;
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
    ed25519Verifier(publicKey) {
      const key = crypto.createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: base64urlnopad.encode(publicKey) },
        format: 'jwk',
      });
      // With a callback, node:crypto verifies on libuv's thread pool, as WebCrypto does.
      return (message, signature) =>
        new Promise((resolve) => {
          try {
            crypto.verify(null, message, key as never, signature, (error, ok) =>
              resolve(error === null && ok === true),
            );
          } catch {
            resolve(false); // A signature of the wrong length, say.
          }
        });
    },
    sha256:
      typeof hash === 'function'
        ? (bytes) => plain(hash('sha256', bytes, 'buffer'))
        : (bytes) => plain(crypto.createHash('sha256').update(bytes).digest()),
    chacha20poly1305: aead(crypto),
  };
}
