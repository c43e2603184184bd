// Where WebCrypto has no Ed25519 (or no WebCrypto at all), signatures are checked by
// @noble/curves instead, with the same answers.
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe('signature checks without WebCrypto Ed25519', () => {
  it('give the same answers', async () => {
    // Random bytes still come from the runtime; only `subtle` is gone.
    const { getRandomValues } = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: getRandomValues.bind(globalThis.crypto) });
    vi.resetModules();
    const { SigningKey, verifySignature } = await import('../src/keys.js');
    const key = SigningKey.generate();
    const message = new Uint8Array([7, 7, 7]);
    const signature = key.sign(message);
    expect(await verifySignature(key.did, message, signature)).toBe(true);
    expect(await verifySignature(key.did, new Uint8Array([7]), signature)).toBe(false);
    expect(await verifySignature(SigningKey.generate().did, message, signature)).toBe(false);
  });
});
