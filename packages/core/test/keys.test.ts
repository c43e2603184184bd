import { inspect } from 'node:util';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { toHex } from '../src/bytes.js';
import { didFromPublicKey, publicKeyFromDid, SigningKey, verifySignature } from '../src/keys.js';

describe('signing keys', () => {
  it('signs as a did:key that verifies', async () => {
    const key = SigningKey.generate();
    expect(key.did).toMatch(/^did:key:z6Mk/);
    expect(publicKeyFromDid(key.did)).toEqual(key.publicKey);
    expect(didFromPublicKey(key.publicKey)).toBe(key.did);
    const message = new Uint8Array([1, 2, 3]);
    const signature = await key.sign(message);
    expect(await verifySignature(key.did, message, signature)).toBe(true);
    expect(await verifySignature(key.did, new Uint8Array([1, 2, 4]), signature)).toBe(false);
    expect(await verifySignature(SigningKey.generate().did, message, signature)).toBe(false);
    expect(await verifySignature('did:key:nonsense', message, signature)).toBe(false);
    expect(SigningKey.fromSecret(key.exportSecret()).did).toBe(key.did);
  });

  it('signs with WebCrypto byte for byte as @noble/curves does (deterministic Ed25519)', async () => {
    const secret = ed25519.utils.randomSecretKey();
    const key = SigningKey.fromSecret(secret);
    for (const message of [
      new Uint8Array(),
      new Uint8Array([1, 2, 3]),
      new Uint8Array(1000).fill(9),
    ]) {
      const signature = await key.sign(message);
      expect(signature).toBeInstanceOf(Uint8Array);
      expect(toHex(signature)).toBe(toHex(ed25519.sign(message, secret)));
      expect(await verifySignature(key.did, message, signature)).toBe(true);
    }
  });

  it('never shows its secret', () => {
    const key = SigningKey.generate();
    const secret = toHex(key.exportSecret());
    const shown = [String(key), JSON.stringify(key), inspect(key), inspect({ key }), `${key}`];
    for (const text of shown) {
      expect(text).not.toContain(secret);
      expect(text).toContain(key.did);
    }
  });

  it('rejects DIDs that are not Ed25519 did:keys', () => {
    for (const bad of [
      '',
      'did:web:example.com',
      'did:key:z',
      'did:key:zzzz',
      `did:key:z${'1'.repeat(100)}`,
    ]) {
      expect(() => publicKeyFromDid(bad)).toThrow(/did:key/);
    }
  });
});
