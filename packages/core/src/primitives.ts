/**
 * SHA-256 and XChaCha20-Poly1305 as core uses them everywhere (version ids, batch trees, sealed
 * bodies): @noble's, or the platform's own where a node was handed one (`NodeConfig.crypto`,
 * {@link PlatformCrypto}). The platform's are checked first to give noble's bytes exactly, so
 * which one ran never shows; they are taken process-wide, since every caller gets the same
 * bytes either way, and a platform's native code is several times faster than pure JS.
 */
import { chacha20poly1305, hchacha, xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { randomBytes } from '@noble/ciphers/utils.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { compareBytes, packParts, toHex } from './bytes.js';
import { MincaError } from './errors.js';
import type { PlatformAead, PlatformCrypto } from './keys.js';

let platformSha256: ((bytes: Uint8Array) => Uint8Array) | undefined;
let platformSha256Hex: ((bytes: Uint8Array) => string) | undefined;
let platformAead: PlatformAead | undefined;
/** The platform's many openings at once, once checked (`checkOpenMany`). */
let platformOpenMany: PlatformAead['openMany'];
/** The platform's many sealings at once, once checked (`checkSealMany`). */
let platformSealMany: PlatformAead['sealMany'];
/** The platform's many openings of salted seals at once, once checked (`checkOpenSaltedMany`). */
let platformOpenSaltedMany: PlatformAead['openSaltedMany'];
/** The platform whose primitives are in use. */
let installed: PlatformCrypto | undefined;

/** SHA-256 of `bytes`, by the platform when it gave one. */
export function sha256(bytes: Uint8Array): Uint8Array {
  return platformSha256 ? platformSha256(bytes) : nobleSha256(bytes);
}

/** SHA-256 of `bytes` as lowercase hex, by the platform when it gave that. */
export function sha256Hex(bytes: Uint8Array): string {
  return platformSha256Hex ? platformSha256Hex(bytes) : toHex(sha256(bytes));
}

/** SHA-256 of `a ‖ b`. */
export function sha256Of2(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!platformSha256) return nobleSha256.create().update(a).update(b).digest();
  const both = new Uint8Array(a.length + b.length);
  both.set(a);
  both.set(b, a.length);
  return platformSha256(both);
}

// "expand 32-byte k", ChaCha's constant words.
const SIGMA = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
const IS_LE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

// Scratch for the subkey, reused: sealing and opening are synchronous, and the platform's cipher
// takes its key and nonce for the call only (node:crypto copies them in).
const words = new Uint32Array(12);
const wordBytes = new Uint8Array(words.buffer);
const keyWords = words.subarray(0, 8);
const nonceWords = words.subarray(8, 12);
const subkeyWords = new Uint32Array(8);
const subkey = new Uint8Array(subkeyWords.buffer);
const iv = new Uint8Array(12);

/**
 * XChaCha20-Poly1305 by the IETF construction on the platform's ChaCha20-Poly1305: the
 * HChaCha20 subkey of the key and the nonce's first 16 bytes, and the nonce's last 8 behind
 * four zero bytes (draft-irtf-cfrg-xchacha §2.3), which is what noble's `xchacha20poly1305` does.
 * Runs `use` with them, then wipes them.
 */
export function withSubkey<T>(
  key: Uint8Array,
  nonce: Uint8Array,
  use: (subkey: Uint8Array, iv: Uint8Array) => T,
): T {
  wordBytes.set(key);
  wordBytes.set(nonce.subarray(0, 16), 32);
  hchacha(SIGMA, keyWords, nonceWords, subkeyWords);
  iv.set(nonce.subarray(16, 24), 4);
  try {
    return use(subkey, iv);
  } finally {
    words.fill(0);
    subkeyWords.fill(0);
  }
}

/** XChaCha20-Poly1305 of `plaintext` under a 32-byte key and 24-byte nonce: ciphertext ‖ tag. */
export function xchachaSeal(
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad?: Uint8Array,
): Uint8Array {
  if (!platformAead) return xchacha20poly1305(key, nonce, aad).encrypt(plaintext);
  const aead = platformAead;
  return withSubkey(key, nonce, (k, n) => aead.seal(k, n, plaintext, aad ?? EMPTY));
}

/** Opens what {@link xchachaSeal} made; throws when the tag does not match. */
export function xchachaOpen(
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad?: Uint8Array,
): Uint8Array {
  if (!platformAead) return xchacha20poly1305(key, nonce, aad).decrypt(sealed);
  if (sealed.length < 16) throw new Error('sealed value is shorter than its tag');
  const aead = platformAead;
  const plain = withSubkey(key, nonce, (k, n) => aead.open(k, n, sealed, aad ?? EMPTY));
  if (!plain) throw new Error('the tag does not match');
  return plain;
}

const EMPTY = new Uint8Array(0);

/**
 * The platform's many openings and sealings at once, where it gives them and they were checked
 * (`checkOpenMany`, `checkSealMany`, `checkOpenSaltedMany`) before it was put to use: for
 * `xchacha-many.ts` and `seal.ts`.
 */
export function manyAtOnce(): Pick<PlatformAead, 'openMany' | 'sealMany' | 'openSaltedMany'> {
  return {
    openMany: platformOpenMany,
    sealMany: platformSealMany,
    openSaltedMany: platformOpenSaltedMany,
  };
}

/** What `call` gives, or `invalid_input` naming `what` when it throws. */
function answer<T>(what: string, call: () => T): T {
  try {
    return call();
  } catch (cause) {
    return refuse(what, cause);
  }
}

const refuse = (what: string, cause?: unknown): never => {
  throw new MincaError(
    'invalid_input',
    `NodeConfig.crypto's ${what} gives other bytes than it must; refusing to use it`,
    cause === undefined ? undefined : { cause },
  );
};

/** Platforms already checked. */
const checked = new WeakSet<PlatformCrypto>();

/** Inputs of the sizes that matter: empty, under a block, at and over block bounds, larger. */
const SIZES = [0, 1, 55, 56, 64, 65, 200, 1000, 4099];

/**
 * Checks the platform's SHA-256 and ChaCha20-Poly1305, where it gives them, against noble's
 * on random inputs: same digests, same ciphertexts and tags, opening what it sealed and
 * refusing a changed tag or associated data. `invalid_input` otherwise.
 */
export function checkPrimitives(platform: PlatformCrypto): void {
  // Once per platform object: a process making many nodes with one checks it once.
  if (checked.has(platform)) return;
  const { sha256: bytes, sha256Hex: hex } = platform;
  for (const n of SIZES) {
    const input = randomBytes(n);
    const expected = nobleSha256(input);
    if (bytes) {
      const digest = answer('sha256', () => bytes.call(platform, input));
      if (!(digest instanceof Uint8Array) || compareBytes(digest, expected) !== 0) refuse('sha256');
    }
    if (hex && answer('sha256Hex', () => hex.call(platform, input)) !== toHex(expected))
      refuse('sha256Hex');
  }
  const aead = platform.chacha20poly1305;
  if (aead) {
    for (const n of SIZES) {
      const key = randomBytes(32);
      const nonce = randomBytes(12);
      const aad = randomBytes(n % 97);
      const plain = randomBytes(n);
      const expected = chacha20poly1305(key, nonce, aad).encrypt(plain);
      let sealed: Uint8Array | undefined;
      let opened: Uint8Array | undefined;
      let tampered: Uint8Array | undefined = EMPTY;
      let moved: Uint8Array | undefined = EMPTY;
      try {
        sealed = aead.seal(key, nonce, plain, aad);
        opened = aead.open(key, nonce, expected, aad);
        const bad = expected.slice();
        bad[bad.length - 1]! ^= 1;
        tampered = aead.open(key, nonce, bad, aad);
        moved = aead.open(key, nonce, expected, randomBytes(aad.length + 1));
      } catch (cause) {
        refuse('chacha20poly1305', cause);
      }
      if (
        !(sealed instanceof Uint8Array) ||
        compareBytes(sealed, expected) !== 0 ||
        !(opened instanceof Uint8Array) ||
        compareBytes(opened, plain) !== 0 ||
        tampered !== undefined ||
        moved !== undefined
      )
        refuse('chacha20poly1305');
    }
  }
  checked.add(platform);
}

/** 64 random keys and nonces (also back to back) with associated data and plaintexts. */
function aeadCases() {
  const count = 64;
  const keys = new Uint8Array(32 * count);
  const nonces = new Uint8Array(12 * count);
  const cases = Array.from({ length: count }, (_, i) => {
    const [key, nonce] = [randomBytes(32), randomBytes(12)];
    keys.set(key, 32 * i);
    nonces.set(nonce, 12 * i);
    return { key, nonce, aad: randomBytes(i % 41), plain: randomBytes(SIZES[i % SIZES.length]!) };
  });
  return { count, keys, nonces, cases };
}

/** Whether two openings are the same: both failed, or the same bytes. */
const sameOpening = (a: Uint8Array | undefined, b: Uint8Array | undefined) =>
  a === undefined || b === undefined
    ? a === b
    : a instanceof Uint8Array && compareBytes(a, b) === 0;

/**
 * Whether a platform's many openings at once, run by `open`, give `expected`: true if so,
 * `invalid_input` (naming `what`) if it answers otherwise, false if it fails instead (its
 * workers could not start, say), which is not lying: it is then left unused.
 */
async function opensAsExpected(
  what: string,
  open: () => Promise<Array<Uint8Array | undefined>>,
  expected: ReadonlyArray<Uint8Array | undefined>,
): Promise<boolean> {
  let opened: Array<Uint8Array | undefined>;
  try {
    opened = await open();
  } catch {
    return false;
  }
  if (opened.length !== expected.length || !expected.every((e, i) => sameOpening(opened[i], e)))
    refuse(what);
  return true;
}

/** Platforms whose many openings at once were checked. */
const checkedMany = new WeakSet<PlatformCrypto>();

/**
 * Checks the platform's many openings at once, where it gives them, against noble's: the same
 * plaintexts, in order, and `undefined` for a changed tag or associated data. `invalid_input`
 * when it answers otherwise; when it fails instead, it is not used.
 */
export async function checkOpenMany(platform: PlatformCrypto): Promise<void> {
  const aead = platform.chacha20poly1305;
  if (!aead?.openMany || checkedMany.has(platform)) return;
  const { count, keys, nonces, cases } = aeadCases();
  const parts: Uint8Array[] = [];
  const expected: Array<Uint8Array | undefined> = [];
  cases.forEach(({ key, nonce, aad, plain }, i) => {
    const sealed = chacha20poly1305(key, nonce, aad).encrypt(plain);
    // Every third has its tag changed, every fifth other associated data.
    if (i % 3 === 1) sealed[sealed.length - 1]! ^= 1;
    parts.push(i % 5 === 2 ? randomBytes(aad.length + 1) : aad, sealed);
    expected.push(i % 3 === 1 || i % 5 === 2 ? undefined : plain);
  });
  const { bytes, ends } = packParts(parts);
  const open = () => aead.openMany!({ count, keys, nonces, bytes, ends });
  if (await opensAsExpected('chacha20poly1305.openMany', open, expected)) checkedMany.add(platform);
}

/** Platforms whose many openings of salted seals at once were checked. */
const checkedSaltedMany = new WeakSet<PlatformCrypto>();

/**
 * Checks the platform's many openings of salted seals at once, where it gives them, against
 * noble's: sealed here under nonces SHA-256(salt ‖ aad) (their first 24 bytes, as `seal.ts`
 * makes them), the same plaintexts in order, and `undefined` for a changed tag, salt or
 * associated data, or one shorter than a tag. `invalid_input` when it answers otherwise; when it
 * fails instead, it is not used.
 */
export async function checkOpenSaltedMany(platform: PlatformCrypto): Promise<void> {
  const aead = platform.chacha20poly1305;
  if (!aead?.openSaltedMany || checkedSaltedMany.has(platform)) return;
  const { count, cases } = aeadCases();
  const key = randomBytes(32);
  const salts = randomBytes(8 * count);
  const parts: Uint8Array[] = [];
  const expected: Array<Uint8Array | undefined> = [];
  cases.forEach(({ aad, plain }, i) => {
    const nonce = nobleSha256
      .create()
      .update(salts.subarray(8 * i, 8 * i + 8))
      .update(aad)
      .digest()
      .subarray(0, 24);
    const sealed = xchacha20poly1305(key, nonce, aad).encrypt(plain);
    // Every third has its tag changed, every fifth other associated data, every seventh its
    // salt changed (below), and the last is cut shorter than a tag.
    if (i % 3 === 1) sealed[sealed.length - 1]! ^= 1;
    parts.push(
      i % 5 === 2 ? randomBytes(aad.length + 1) : aad,
      i === count - 1 ? sealed.subarray(0, 15) : sealed,
    );
    const changed = i % 3 === 1 || i % 5 === 2 || i % 7 === 3 || i === count - 1;
    expected.push(changed ? undefined : plain);
  });
  for (let i = 3; i < count; i += 7) salts[8 * i]! ^= 1;
  const { bytes, ends } = packParts(parts);
  const open = () => aead.openSaltedMany!({ count, key, salts, bytes, ends });
  if (await opensAsExpected('chacha20poly1305.openSaltedMany', open, expected))
    checkedSaltedMany.add(platform);
}

/** Platforms whose many sealings at once were checked. */
const checkedSealMany = new WeakSet<PlatformCrypto>();

/**
 * Checks the platform's many sealings at once, where it gives them, against noble's: the same
 * ciphertexts and tags, in order. `invalid_input` when it answers otherwise; when it fails
 * instead, it is not used.
 */
export async function checkSealMany(platform: PlatformCrypto): Promise<void> {
  const aead = platform.chacha20poly1305;
  if (!aead?.sealMany || checkedSealMany.has(platform)) return;
  const { count, keys, nonces, cases } = aeadCases();
  const parts = cases.flatMap(({ aad, plain }) => [aad, plain]);
  const expected = cases.map(({ key, nonce, aad, plain }) =>
    chacha20poly1305(key, nonce, aad).encrypt(plain),
  );
  const { bytes, ends } = packParts(parts);
  let sealed: Uint8Array[];
  try {
    sealed = await aead.sealMany({ count, keys, nonces, bytes, ends });
  } catch {
    // Failing (its workers could not start, say) is not lying: it is left unused.
    return;
  }
  const same = (a: unknown, b: Uint8Array) => a instanceof Uint8Array && compareBytes(a, b) === 0;
  if (sealed.length !== count || !expected.every((e, i) => same(sealed[i], e)))
    refuse('chacha20poly1305.sealMany');
  checkedSealMany.add(platform);
}

/**
 * Uses the platform's SHA-256 and ChaCha20-Poly1305 from now on, in this whole process (after
 * {@link checkPrimitives}). Only on little-endian hosts (all that run JS today), since the
 * HChaCha20 words are read in place.
 */
export function usePrimitives(platform: PlatformCrypto): void {
  if (installed === platform) return;
  checkPrimitives(platform);
  if (platform.sha256) platformSha256 = platform.sha256.bind(platform);
  if (platform.sha256Hex) platformSha256Hex = platform.sha256Hex.bind(platform);
  if (!platform.chacha20poly1305 || !IS_LE) return;
  platformAead = platform.chacha20poly1305;
  const { openMany, sealMany, openSaltedMany } = platformAead;
  // Only once checked (`checkOpenMany`, `checkSealMany`, which are asynchronous).
  platformOpenMany =
    openMany && checkedMany.has(platform) ? openMany.bind(platformAead) : undefined;
  platformSealMany =
    sealMany && checkedSealMany.has(platform) ? sealMany.bind(platformAead) : undefined;
  platformOpenSaltedMany =
    openSaltedMany && checkedSaltedMany.has(platform)
      ? openSaltedMany.bind(platformAead)
      : undefined;
  // The XChaCha construction over it, once, against noble's own.
  const key = randomBytes(32);
  const nonce = randomBytes(24);
  const plain = randomBytes(77);
  const aad = randomBytes(40);
  const sealed = xchachaSeal(key, nonce, plain, aad);
  if (compareBytes(sealed, xchacha20poly1305(key, nonce, aad).encrypt(plain)) !== 0) {
    platformAead = undefined;
    platformOpenMany = undefined;
    platformSealMany = undefined;
    platformOpenSaltedMany = undefined;
    refuse('chacha20poly1305');
  }
  installed = platform;
}

/** Back to noble's own, for tests comparing the two. */
export function useNoblePrimitives(): void {
  installed = undefined;
  platformSha256 = undefined;
  platformSha256Hex = undefined;
  platformAead = undefined;
  platformOpenMany = undefined;
  platformSealMany = undefined;
  platformOpenSaltedMany = undefined;
}
