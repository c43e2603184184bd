// Where WebCrypto has no Ed25519 (or no WebCrypto at all), signatures are made and checked by
// @noble/curves instead, with the same answers.
import { ed25519 } from '@noble/curves/ed25519.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toHex } from '../src/bytes.js';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

/** keys.ts loaded afresh under the `crypto` global given. */
async function keysWith(crypto: object) {
  vi.stubGlobal('crypto', crypto);
  vi.resetModules();
  return import('../src/keys.js');
}

// Random bytes still come from the runtime.
const { getRandomValues } = globalThis.crypto;
const randomOnly = { getRandomValues: getRandomValues.bind(globalThis.crypto) };

describe('signatures without WebCrypto Ed25519', () => {
  it('give the same answers', async () => {
    // Only `subtle` is gone.
    const { SigningKey, verifySignature } = await keysWith(randomOnly);
    const key = SigningKey.generate();
    const message = new Uint8Array([7, 7, 7]);
    const signature = await key.sign(message);
    expect(await verifySignature(key.did, message, signature)).toBe(true);
    expect(await verifySignature(key.did, new Uint8Array([7]), signature)).toBe(false);
    expect(await verifySignature(SigningKey.generate().did, message, signature)).toBe(false);
  });

  it('sign the same bytes as noble, and as WebCrypto would', async () => {
    const secret = ed25519.utils.randomSecretKey();
    const message = new Uint8Array([1, 2, 3]);
    const { SigningKey } = await keysWith(randomOnly);
    const signature = await SigningKey.fromSecret(secret).sign(message);
    expect(toHex(signature)).toBe(toHex(ed25519.sign(message, secret)));
  });

  it('fall back when WebCrypto is there without Ed25519', async () => {
    const refuse = () => Promise.reject(new Error('Unrecognized name'));
    const subtle = { importKey: refuse, sign: refuse, verify: refuse };
    const { SigningKey, verifySignature } = await keysWith({ ...randomOnly, subtle });
    const key = SigningKey.generate();
    const message = new Uint8Array([7, 7, 7]);
    const signature = await key.sign(message);
    expect(await verifySignature(key.did, message, signature)).toBe(true);
    expect(await verifySignature(key.did, new Uint8Array([7]), signature)).toBe(false);
  });
});
