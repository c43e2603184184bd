import * as nodeCryptoModule from 'node:crypto';
import * as workerThreads from 'node:worker_threads';
import { randomBytes } from '@noble/ciphers/utils.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type PlatformCrypto,
  type SignatureCheck,
  SigningKey,
  verifyEd25519,
  verifyEd25519Many,
} from '../src/keys.js';
import { nodeCrypto } from '../src/node-crypto.js';
import { checkPlatformVerify, useOwnVerify, usePlatformVerify } from '../src/platform-verify.js';
import {
  createVersion,
  createVersions,
  decodeVersion,
  verifyVersion,
  verifyVersions,
} from '../src/version.js';
import { errorCode } from './error-code.js';

const native = () => nodeCrypto(nodeCryptoModule);
const code = errorCode;

/** A platform whose only Ed25519 verifier is `verifier`; it signs as noble does. */
const withVerifier = (
  verifier: (message: Uint8Array, signature: Uint8Array) => Promise<boolean>,
): PlatformCrypto => ({
  ed25519Signer: (secret) => (message) => ed25519.sign(message, secret),
  ed25519Verifier: () => verifier,
});

/** The signature with S + L in place of S: valid under ZIP-215, not under RFC 8032. */
function largeScalar(signature: Uint8Array): Uint8Array {
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i]!);
  s += ed25519.Point.Fn.ORDER;
  const out = signature.slice();
  for (let i = 32; i < 64; i++, s >>= 8n) out[i] = Number(s & 0xffn);
  return out;
}

afterEach(() => useOwnVerify());

/** Signature checks by one key, good and changed, of S + L for S, and of the wrong lengths. */
function checkCases(): Array<SignatureCheck & { valid: boolean }> {
  const secret = ed25519.utils.randomSecretKey();
  const publicKey = ed25519.getPublicKey(secret);
  const out: Array<SignatureCheck & { valid: boolean }> = [];
  for (let i = 0; i < 40; i++) {
    const message = randomBytes(i * 7);
    const signature = ed25519.sign(message, secret);
    const bad = signature.slice();
    bad[i % 64]! ^= 1 << (i % 8);
    out.push({ publicKey, message, signature, valid: true });
    out.push({ publicKey, message, signature: bad, valid: false });
  }
  const message = randomBytes(8);
  const signature = ed25519.sign(message, secret);
  out.push({ publicKey, message, signature: largeScalar(signature), valid: false });
  out.push({ publicKey, message, signature: signature.subarray(0, 63), valid: false });
  out.push({ publicKey: publicKey.subarray(0, 31), message, signature, valid: false });
  return out;
}

describe('the platform’s Ed25519 verification', () => {
  it('node:crypto’s agrees with RFC 8032 strictly, as the runtime’s own does, case by case', async () => {
    const secret = ed25519.utils.randomSecretKey();
    const publicKey = ed25519.getPublicKey(secret);
    const cases: Array<[Uint8Array, Uint8Array, Uint8Array]> = [];
    for (let i = 0; i < 20; i++) {
      const message = randomBytes(i * 13);
      const signature = ed25519.sign(message, secret);
      const bad = signature.slice();
      bad[i % 64]! ^= 1 << (i % 8);
      cases.push([publicKey, message, signature], [publicKey, message, bad]);
    }
    // S + L for S, which RFC 8032 refuses.
    for (let i = 0; i < 4; i++) {
      const message = randomBytes(8);
      cases.push([publicKey, message, largeScalar(ed25519.sign(message, secret))]);
    }
    const expected = cases.map(([key, m, sig]) => ed25519.verify(sig, m, key, { zip215: false }));
    expect(expected.filter(Boolean).length).toBe(20);
    const own = await Promise.all(cases.map(([key, m, sig]) => verifyEd25519(key, m, sig)));
    await usePlatformVerify(native());
    const platform = await Promise.all(cases.map(([key, m, sig]) => verifyEd25519(key, m, sig)));
    expect(own).toEqual(expected);
    expect(platform).toEqual(expected);
  });

  it('a signature or key of the wrong length verifies nothing, and never rejects', async () => {
    await usePlatformVerify(native());
    const key = SigningKey.generate();
    const message = randomBytes(20);
    const signature = await key.sign(message);
    expect(await verifyEd25519(key.publicKey, message, signature)).toBe(true);
    expect(await verifyEd25519(key.publicKey, message, signature.subarray(0, 63))).toBe(false);
    expect(await verifyEd25519(key.publicKey.subarray(0, 31), message, signature)).toBe(false);
  });

  it('node:crypto on worker threads checks many at once as it checks each', async () => {
    const cases = checkCases();
    const platform = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 2 });
    await usePlatformVerify(platform);
    expect(await verifyEd25519Many(cases)).toEqual(cases.map((c) => c.valid));
    expect(await platform.ed25519VerifyMany!(cases)).toEqual(cases.map((c) => c.valid));
  });

  it('a batch of versions is checked in one call, and one changed signature fails it', async () => {
    const platform = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 2 });
    const calls: number[] = [];
    await usePlatformVerify({
      ...platform,
      ed25519VerifyMany(checks) {
        calls.push(checks.length);
        return platform.ed25519VerifyMany!(checks);
      },
    });
    calls.length = 0;
    const key = SigningKey.generate();
    const drafts = Array.from({ length: 50 }, (_, i) => ({
      space: 'aaaaaaaaaaaaaaaaaaaaaaaaaa',
      collection: 'app.post',
      record: `r${i}`,
      supersedes: [],
      timestamp: 1_700_000_000_000 + i,
      files: [],
      body: { n: i },
    }));
    const versions = await createVersions(drafts, new Uint8Array(32), key);
    const fromOutside = versions.map((v) => decodeVersion(v.bytes));
    await expect(verifyVersions(fromOutside)).resolves.toBeUndefined();
    expect(calls).toEqual([50]);
    const bytes = versions[17]!.bytes.slice();
    bytes[bytes.length - 10]! ^= 1; // Inside the signature.
    const changed = fromOutside.map((v, i) => (i === 17 ? decodeVersion(bytes) : v));
    expect(await code(() => verifyVersions(changed))).toBe('invalid_version');
    // Versions under one batch signature carry none of their own: no many-check is asked for.
    calls.length = 0;
    const batched = await createVersions(drafts, new Uint8Array(32), key, { perSignature: 50 });
    await expect(
      verifyVersions(batched.map((v) => decodeVersion(v.bytes))),
    ).resolves.toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('where checking many fails later, each is checked alone: nothing passes for it', async () => {
    const cases = checkCases();
    let failing = false;
    const platform = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 2 });
    await usePlatformVerify({
      ...platform,
      ed25519VerifyMany(checks) {
        if (failing) return Promise.reject(new Error('the workers went away'));
        return platform.ed25519VerifyMany!(checks);
      },
    });
    failing = true;
    expect(await verifyEd25519Many(cases)).toEqual(cases.map((c) => c.valid));
  });

  it('refuses a many-checker that is lenient, miscounts or throws, with invalid_input', async () => {
    const platform = native();
    const many = (verifyMany: PlatformCrypto['ed25519VerifyMany']) => ({
      ...platform,
      ed25519VerifyMany: verifyMany,
    });
    const lenient = many(async (checks) => checks.map(() => true));
    const short = many(async (checks) => checks.slice(1).map(() => false));
    const throwing = many(async () => {
      throw new Error('no');
    });
    for (const bad of [lenient, short, throwing])
      expect(await code(() => checkPlatformVerify(bad))).toBe('invalid_input');
    const workers = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 2 });
    expect(await code(() => checkPlatformVerify(workers))).toBe('none');
  });

  it('versions are checked through it: a changed byte fails verifyVersion', async () => {
    await usePlatformVerify(native());
    const key = SigningKey.generate();
    const version = await createVersion(
      {
        space: 'aaaaaaaaaaaaaaaaaaaaaaaaaa',
        collection: 'app.post',
        record: 'r1',
        supersedes: [],
        timestamp: 1_700_000_000_000,
        files: [],
        body: { text: 'hello' },
      },
      new Uint8Array(32),
      key,
    );
    await expect(verifyVersion(version)).resolves.toBeUndefined();
    const bytes = version.bytes.slice();
    bytes[bytes.length - 10]! ^= 1; // Inside the signature.
    expect(await code(() => verifyVersion(decodeVersion(bytes)))).toBe('invalid_version');
  });

  it('refuses a verifier that is lenient, wrong or throws, with invalid_input', async () => {
    expect(await code(() => checkPlatformVerify(withVerifier(async () => true)))).toBe(
      'invalid_input',
    );
    expect(await code(() => checkPlatformVerify(withVerifier(async () => false)))).toBe(
      'invalid_input',
    );
    expect(
      await code(() =>
        checkPlatformVerify(
          withVerifier(async () => {
            throw new Error('no');
          }),
        ),
      ),
    ).toBe('invalid_input');
    // One that takes S modulo the group order first accepts S + L: it is refused too.
    const reducing = withVerifier(async () => false);
    reducing.ed25519Verifier = (publicKey) => async (message, signature) => {
      const reduced = signature.slice();
      let s = 0n;
      for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i]!);
      s %= ed25519.Point.Fn.ORDER;
      for (let i = 32; i < 64; i++, s >>= 8n) reduced[i] = Number(s & 0xffn);
      return ed25519.verify(reduced, message, publicKey, { zip215: false });
    };
    expect(await code(() => checkPlatformVerify(reducing))).toBe('invalid_input');
    // node:crypto's passes.
    expect(await code(() => checkPlatformVerify(native()))).toBe('none');
  });
});
