import * as nodeCryptoModule from 'node:crypto';
import { chacha20poly1305, xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { randomBytes } from '@noble/ciphers/utils.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { afterEach, describe, expect, it } from 'vitest';
import { leafHash, merkleTree, rootOf } from '../src/batch-tree.js';
import { toHex } from '../src/bytes.js';
import { hashId, hashIdHex } from '../src/ids.js';
import { checkPlatformCrypto, type PlatformCrypto } from '../src/keys.js';
import { nodeCrypto } from '../src/node-crypto.js';
import {
  sha256,
  useNoblePrimitives,
  usePrimitives,
  xchachaOpen,
  xchachaSeal,
} from '../src/primitives.js';
import { open, openSalted, randomKey, seal, sealSalted } from '../src/seal.js';
import { errorCode } from './error-code.js';

const native = () => nodeCrypto(nodeCryptoModule);
const SIZES = [0, 1, 31, 55, 56, 63, 64, 65, 200, 1000, 60_000];
const code = errorCode;

afterEach(() => useNoblePrimitives());

describe('the platform’s SHA-256 and ChaCha20-Poly1305', () => {
  it('node:crypto gives @noble’s bytes for SHA-256 and RFC 8439 ChaCha20-Poly1305', () => {
    const platform = native();
    for (const n of SIZES) {
      const input = randomBytes(n);
      const digest = platform.sha256!(input);
      expect(digest.constructor).toBe(Uint8Array);
      expect(digest).toEqual(nobleSha256(input));
      expect(platform.sha256Hex!(input)).toBe(toHex(nobleSha256(input)));
      const key = randomBytes(32);
      const nonce = randomBytes(12);
      const aad = randomBytes(n % 50);
      const sealed = platform.chacha20poly1305!.seal(key, nonce, input, aad);
      expect(sealed).toEqual(chacha20poly1305(key, nonce, aad).encrypt(input));
      expect(platform.chacha20poly1305!.open(key, nonce, sealed, aad)).toEqual(input);
      sealed[0]! ^= 1;
      expect(platform.chacha20poly1305!.open(key, nonce, sealed, aad)).toBeUndefined();
    }
  });

  it('XChaCha20-Poly1305 over the platform’s cipher is noble’s, byte for byte, both ways', () => {
    const cases = SIZES.map((n) => ({
      key: randomBytes(32),
      nonce: randomBytes(24),
      plain: randomBytes(n),
      aad: randomBytes(n % 130),
    }));
    usePrimitives(native());
    const natively = cases.map((c) => xchachaSeal(c.key, c.nonce, c.plain, c.aad));
    cases.forEach((c, i) => {
      expect(natively[i]).toEqual(xchacha20poly1305(c.key, c.nonce, c.aad).encrypt(c.plain));
    });
    useNoblePrimitives();
    cases.forEach((c, i) => {
      expect(xchachaOpen(c.key, c.nonce, natively[i]!, c.aad)).toEqual(c.plain);
    });
    const byNoble = cases.map((c) => xchachaSeal(c.key, c.nonce, c.plain, c.aad));
    usePrimitives(native());
    cases.forEach((c, i) => {
      expect(xchachaOpen(c.key, c.nonce, byNoble[i]!, c.aad)).toEqual(c.plain);
      // Another aad, or a changed byte, does not open.
      expect(() => xchachaOpen(c.key, c.nonce, byNoble[i]!, randomBytes(3))).toThrow();
      const bad = byNoble[i]!.slice();
      bad[bad.length - 1]! ^= 0x80;
      expect(() => xchachaOpen(c.key, c.nonce, bad, c.aad)).toThrow();
    });
  });

  it('seals and opens as before: what one path seals, the other opens; tampering is invalid_version', async () => {
    const key = randomKey();
    const aad = randomBytes(90);
    const plain = randomBytes(300);
    const byNoble = [seal(key, plain, aad), sealSalted(key, plain, aad)] as const;
    usePrimitives(native());
    const byNative = [seal(key, plain, aad), sealSalted(key, plain, aad)] as const;
    expect(open(key, byNoble[0], aad)).toEqual(plain);
    expect(openSalted(key, byNoble[1], aad)).toEqual(plain);
    const tampered = byNative[1].slice();
    tampered[10]! ^= 1;
    expect(await code(() => openSalted(key, tampered, aad))).toBe('invalid_version');
    expect(await code(() => open(randomKey(), byNative[0], aad))).toBe('invalid_version');
    useNoblePrimitives();
    expect(open(key, byNative[0], aad)).toEqual(plain);
    expect(openSalted(key, byNative[1], aad)).toEqual(plain);
  });

  it('hashes ids and batch trees as noble does', () => {
    const leaves = Array.from({ length: 13 }, () => leafHash(randomBytes(120)));
    const input = randomBytes(500);
    const before = { id: hashId(input), tree: merkleTree(leaves), leaf: leafHash(input, input) };
    usePrimitives(native());
    expect(hashId(input)).toEqual(before.id);
    expect(hashIdHex(input)).toBe(toHex(before.id));
    expect(sha256(input)).toEqual(nobleSha256(input));
    expect(leafHash(input, input)).toEqual(before.leaf);
    const tree = merkleTree(leaves);
    expect(tree.root).toEqual(before.tree.root);
    leaves.forEach((leaf, i) => {
      expect(rootOf(leaf, i, leaves.length, tree.paths[i]!)).toEqual(tree.root);
    });
  });

  it('refuses a platform whose hash or cipher gives other bytes, or opens what was changed', async () => {
    const good = native();
    const badHash: PlatformCrypto = { ...good, sha256: (b) => nobleSha256(b).map((x) => x ^ 1) };
    expect(await code(() => checkPlatformCrypto(badHash))).toBe('invalid_input');
    expect(await code(() => usePrimitives(badHash))).toBe('invalid_input');
    // Its hex digest is checked too, on its own: upper case is not the id's hex.
    const badHex: PlatformCrypto = {
      ...good,
      sha256Hex: (b) => toHex(nobleSha256(b)).toUpperCase(),
    };
    expect(await code(() => checkPlatformCrypto(badHex))).toBe('invalid_input');
    expect(await code(() => usePrimitives(badHex))).toBe('invalid_input');
    const loose: PlatformCrypto = {
      ...good,
      chacha20poly1305: {
        seal: good.chacha20poly1305!.seal,
        // Opens without checking the tag.
        open: (key, nonce, sealed) =>
          nodeCryptoModule
            .createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 })
            .update(sealed.subarray(0, sealed.length - 16)),
      },
    };
    expect(await code(() => checkPlatformCrypto(loose))).toBe('invalid_input');
    const throws: PlatformCrypto = {
      ...good,
      sha256: () => {
        throw new Error('no');
      },
    };
    expect(await code(() => checkPlatformCrypto(throws))).toBe('invalid_input');
    // Refused, nothing of it is used: still noble's.
    const input = randomBytes(40);
    expect(sha256(input)).toEqual(nobleSha256(input));
    expect(hashIdHex(input)).toBe(toHex(nobleSha256(input)));
  });

  it('without a hash or cipher from the platform, noble’s are used and the node still starts', async () => {
    const signOnly: PlatformCrypto = { ed25519Signer: good().ed25519Signer };
    await checkPlatformCrypto(signOnly);
    usePrimitives(signOnly);
    const key = randomKey();
    const sealed = sealSalted(key, new Uint8Array([1, 2, 3]), new Uint8Array([9]));
    expect(openSalted(key, sealed, new Uint8Array([9]))).toEqual(new Uint8Array([1, 2, 3]));
    const input = randomBytes(99);
    expect(hashId(input)).toEqual(nobleSha256(input));
  });
});

function good() {
  return native();
}
