import * as nodeCryptoModule from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { toHex } from '../src/bytes.js';
import { decodeStrict, encodeCbor } from '../src/encoding.js';
import { spaceAccessKey } from '../src/hosting/access-key.js';
import { hashId, randomId } from '../src/ids.js';
import { verifyDetached } from '../src/intake.js';
import { checkPlatformCrypto, SigningKey } from '../src/keys.js';
import { nodeCrypto } from '../src/node-crypto.js';
import { randomKey } from '../src/seal.js';
import {
  createVersion,
  createVersions,
  decodeVersion,
  openBody,
  verifyVersion,
} from '../src/version.js';
import { drafts, errorCode } from './version-fixture.js';

const key = SigningKey.generate();
const spaceKey = randomKey();
const space = randomId();
const draft = drafts({ space, timestamp: 1_780_000_000_000 });
const code = errorCode;

describe('the version envelope (format 2)', () => {
  it('is the CBOR array of spec 05 §3.1, its clear fields in their binary forms', async () => {
    const id = 'ab'.repeat(32);
    const v = await createVersion(draft({ supersedes: [id], files: [id] }), spaceKey, key);
    const items = decodeStrict(v.bytes) as unknown[];
    expect(items).toHaveLength(10);
    expect(items[0]).toBe(2);
    expect(items[1]).toHaveLength(16);
    expect(items.slice(2, 4)).toEqual(['app.post', v.record]);
    expect((items[4] as Uint8Array[]).map(toHex)).toEqual([id]);
    expect(items[5]).toBe(1_780_000_000_000);
    expect(items[6]).toEqual(key.publicKey);
    expect((items[7] as Uint8Array[]).map(toHex)).toEqual([id]);
    // Salt, the body's 18 bytes of CBOR, the tag.
    expect((items[8] as Uint8Array).length).toBe(8 + encodeCbor({ text: 'hello' }).length + 16);
    expect(items[9]).toHaveLength(64);
    // What the generic encoder writes for those items is exactly the envelope: one encoding.
    expect(encodeCbor(items)).toEqual(v.bytes);
    expect(v.space).toBe(space);
    expect(v.author).toBe(key.did);
  });

  it('reads only heads in their shortest form, and nothing after the array', async () => {
    const v = await createVersion(draft(), spaceKey, key);
    // The format (2) as a one-byte uint instead of inline.
    const long = new Uint8Array([v.bytes[0]!, 0x18, 2, ...v.bytes.subarray(2)]);
    expect(await code(() => decodeVersion(long))).toBe('malformed');
    expect(await code(() => decodeVersion(new Uint8Array([...v.bytes, 0])))).toBe('malformed');
    expect(await code(() => decodeVersion(v.bytes.subarray(0, v.bytes.length - 1)))).toBe(
      'malformed',
    );
    // A map with the same fields, as format 1 was, is not a version.
    expect(await code(() => decodeVersion(encodeCbor({ v: 2 })))).toBe('invalid_version');
  });

  test.prop([fc.uint8Array({ minLength: 1, maxLength: 400 }), fc.nat(400)])(
    'turns any other bytes into malformed or invalid_version, never anything else',
    async (noise, at) => {
      const v = await createVersion(draft(), spaceKey, key);
      const bytes = v.bytes.slice();
      bytes.set(
        noise.subarray(0, Math.max(0, bytes.length - (at % bytes.length))),
        at % bytes.length,
      );
      if (toHex(bytes) === toHex(v.bytes)) return;
      const outcome = await code(async () => verifyVersion(decodeVersion(bytes)));
      expect(['malformed', 'invalid_version']).toContain(outcome);
    },
  );
});

describe('batch signatures (spec 05 §3.6)', () => {
  it('sign many versions with one signature, each checkable on its own', async () => {
    for (const size of [2, 3, 5, 16, 17, 100]) {
      const drafts = Array.from({ length: size }, (_, i) => draft({ body: { i } }));
      const versions = await createVersions(drafts, spaceKey, key, { perSignature: size });
      const signatures = new Set(
        versions.map((v) => toHex((decodeStrict(v.bytes) as unknown[][])[9]![0] as Uint8Array)),
      );
      expect(signatures.size).toBe(1);
      for (const [i, v] of versions.entries()) {
        expect(v.id).toBe(toHex(hashId(v.bytes)));
        // Alone, as a peer or an invite code would bring it.
        const [alone] = await verifyDetached([v.bytes.slice()]);
        expect(openBody(alone!, spaceKey)).toEqual({ i });
      }
    }
  });

  it('runs of perSignature share a root; the last run may be shorter or a single signature', async () => {
    const drafts = Array.from({ length: 9 }, (_, i) => draft({ body: { i } }));
    const versions = await createVersions(drafts, spaceKey, key, { perSignature: 4 });
    const proofs = versions.map((v) => (decodeStrict(v.bytes) as unknown[])[9]);
    expect(proofs.slice(0, 8).every(Array.isArray)).toBe(true);
    expect(proofs[8]).toBeInstanceOf(Uint8Array);
    await Promise.all(versions.map(verifyVersion));
  });

  it('refuses a path that was changed, moved to another index, or cut short', async () => {
    const drafts = Array.from({ length: 8 }, (_, i) => draft({ body: { i } }));
    const versions = await createVersions(drafts, spaceKey, key, { perSignature: 8 });
    const [good] = versions;
    const items = decodeStrict(good!.bytes) as unknown[];
    const [sig, n, i, path] = items[9] as [Uint8Array, number, number, Uint8Array[]];
    const forged = [
      [sig, n, 1, path],
      [sig, n, i, path.slice(1)],
      [sig, n, i, [...path, path[0]]],
      [sig, n, i, [path[1], path[0], path[2]]],
      [sig, 9, i, path],
      [sig, n, i, path.map((p, j) => (j === 2 ? p.map((b, k) => (k === 0 ? b ^ 1 : b)) : p))],
    ];
    for (const proof of forged) {
      const bytes = encodeCbor([...items.slice(0, 9), proof]);
      expect(await code(async () => verifyVersion(decodeVersion(bytes)))).toBe('invalid_version');
    }
    // Another author's key over the same leaf and path does not verify either.
    const other = [...items.slice(0, 6), SigningKey.generate().publicKey, ...items.slice(7)];
    expect(await code(async () => verifyVersion(decodeVersion(encodeCbor(other))))).toBe(
      'invalid_version',
    );
  });
});

describe('a platform’s own Ed25519', () => {
  it('node:crypto signs every version byte for byte as WebCrypto and @noble/curves do', async () => {
    await checkPlatformCrypto(nodeCrypto(nodeCryptoModule));
    const secret = ed25519.utils.randomSecretKey();
    const plain = SigningKey.fromSecret(secret);
    const fast = plain.signingWith(nodeCrypto(nodeCryptoModule));
    expect(fast.did).toBe(plain.did);
    const d = draft({ body: { text: 'same' } });
    const message = new Uint8Array([7, 7, 7]);
    expect(await fast.sign(message)).toEqual(ed25519.sign(message, secret));
    const v = await createVersion(d, spaceKey, fast);
    await verifyVersion(decodeVersion(v.bytes));
  });

  it('signs a space access key through the node key’s platform: the same key and signatures', async () => {
    const platform = nodeCrypto(nodeCryptoModule);
    let signed = 0;
    const counting = {
      ...platform,
      ed25519Signer: (secret: Uint8Array, publicKey: Uint8Array) => {
        const sign = platform.ed25519Signer(secret, publicKey);
        return (message: Uint8Array) => {
          signed++;
          return sign(message);
        };
      },
    };
    const nodeKey = SigningKey.generate().signingWith(counting);
    const spaceKeyBytes = new Uint8Array(32).fill(9);
    const plain = spaceAccessKey('space1', spaceKeyBytes);
    const access = spaceAccessKey('space1', spaceKeyBytes, nodeKey);
    expect(access.did).toBe(plain.did);
    const message = new Uint8Array([1, 2, 3]);
    expect(await access.sign(message)).toEqual(await plain.sign(message));
    expect(signed).toBe(1);
    // A key without a platform makes keys without one.
    expect(await SigningKey.generate().like(new Uint8Array(32).fill(1)).sign(message)).toEqual(
      await SigningKey.fromSecret(new Uint8Array(32).fill(1)).sign(message),
    );
  });

  it('makes keys like it of their own secrets, made again or not', async () => {
    const nodeKey = SigningKey.generate().signingWith(nodeCrypto(nodeCryptoModule));
    const secrets = [1, 2, 1, 3, 2].map((n) => new Uint8Array(32).fill(n));
    const message = new Uint8Array([4, 5, 6]);
    // Its public keys are kept by secret: each key made again is still its own secret's.
    for (const secret of secrets) {
      const key = nodeKey.like(secret);
      const plain = SigningKey.fromSecret(secret);
      expect(key.did).toBe(plain.did);
      expect(await key.sign(message)).toEqual(await plain.sign(message));
    }
    expect(() => nodeKey.like(new Uint8Array(31))).toThrow(TypeError);
  });

  it('is refused at start when it signs otherwise', async () => {
    const wrong = { ed25519Signer: () => () => new Uint8Array(64) };
    expect(await code(() => checkPlatformCrypto(wrong))).toBe('invalid_input');
    const throws = {
      ed25519Signer: () => () => {
        throw new Error('no');
      },
    };
    expect(await code(() => checkPlatformCrypto(throws))).toBe('invalid_input');
  });
});
