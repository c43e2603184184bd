/**
 * Sealing: XChaCha20-Poly1305 under a 32-byte key, with a random 24-byte nonce in front.
 * `aad` binds the ciphertext to where it belongs (a version, a key), so it cannot be moved.
 */
import { randomBytes } from '@noble/ciphers/utils.js';
import { eachPair, scratchConcat } from './bytes.js';
import { MincaError } from './errors.js';
import type { SaltedBatch } from './keys.js';
import { manyAtOnce, sha256, xchachaOpen, xchachaSeal } from './primitives.js';
import { pooledRandom } from './random.js';
import { OPEN_MANY_AT_LEAST, XChaChaOpenings, type XChaChaSealings } from './xchacha-many.js';

export const KEY_BYTES = 32;
const NONCE_BYTES = 24;
/** Bytes a sealed value takes beyond its plaintext: nonce and tag. */
export const SEAL_OVERHEAD = NONCE_BYTES + 16;

function checkKey(key: Uint8Array): void {
  if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES) {
    throw new TypeError(`key must be a Uint8Array of ${KEY_BYTES} bytes`);
  }
}

/** A fresh random key for {@link seal}. */
export function randomKey(): Uint8Array {
  return randomBytes(KEY_BYTES);
}

/** Seals `plaintext`: nonce ‖ ciphertext ‖ tag. */
export function seal(key: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array): Uint8Array {
  checkKey(key);
  const nonce = randomBytes(NONCE_BYTES);
  const out = new Uint8Array(NONCE_BYTES + plaintext.length + 16);
  out.set(nonce);
  out.set(xchachaSeal(key, nonce, plaintext, aad), NONCE_BYTES);
  return out;
}

/** Opens what {@link seal} made; a wrong key, wrong `aad` or any tampering is `invalid_version`. */
export function open(key: Uint8Array, sealed: Uint8Array, aad?: Uint8Array): Uint8Array {
  checkKey(key);
  if (sealed.length < SEAL_OVERHEAD) {
    throw new MincaError('invalid_version', 'sealed value is too short to open');
  }
  try {
    return xchachaOpen(key, sealed.subarray(0, NONCE_BYTES), sealed.subarray(NONCE_BYTES), aad);
  } catch (cause) {
    throw new MincaError('invalid_version', 'sealed value does not open under this key', { cause });
  }
}

/** Random bytes before a salted seal's ciphertext (see {@link sealSalted}). */
export const SALT_BYTES = 8;
/** Bytes a salted seal takes beyond its plaintext: salt and tag. */
export const SALTED_OVERHEAD = SALT_BYTES + 16;

/** Where a salted seal's nonce input is put together: salts and associated data, no secret. */
const nonceInputOf = scratchConcat();

/** The nonce of a salted seal: SHA-256(salt ‖ aad), its first 24 bytes. */
function saltedNonce(saltBytes: Uint8Array, aad: Uint8Array): Uint8Array {
  return sha256(nonceInputOf(saltBytes, aad)).subarray(0, NONCE_BYTES);
}

/** Bytes {@link sealSalted} makes of `n` bytes of plaintext. */
export const saltedLength = (n: number): number => SALT_BYTES + n + 16;

/**
 * Seals `plaintext` bound to `aad`, with 8 random bytes in front instead of a 24-byte nonce:
 * the nonce is SHA-256(salt ‖ aad), so it repeats only if both do. For version bodies (spec 05
 * §3.3), whose `aad` names their space, record, author and time, which a writer never repeats.
 */
export function sealSalted(key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Uint8Array {
  const out = new Uint8Array(saltedLength(plaintext.length));
  sealSaltedInto(key, plaintext, aad, out, 0);
  return out;
}

/**
 * What {@link sealSalted} gives, written into `out` at `at` ({@link saltedLength} bytes): a
 * version is built in one buffer, not copied from one to the next. Given `sealings`, the salt
 * is written now and the rest once they are sealed, with many others at once.
 */
export function sealSaltedInto(
  key: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array,
  out: Uint8Array,
  at: number,
  sealings?: XChaChaSealings,
): void {
  checkKey(key);
  const saltBytes = pooledRandom(SALT_BYTES);
  out.set(saltBytes, at);
  const nonce = saltedNonce(saltBytes, aad);
  if (sealings) sealings.add(key, nonce, plaintext, aad, out, at + SALT_BYTES);
  else out.set(xchachaSeal(key, nonce, plaintext, aad), at + SALT_BYTES);
}

/**
 * Adds the opening of what {@link sealSalted} made under `key` to `openings`, to open with
 * others; false (and nothing added) when it is too short to be one.
 */
export function addSalted(
  openings: XChaChaOpenings,
  key: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array,
): boolean {
  checkKey(key);
  if (sealed.length < SALTED_OVERHEAD) return false;
  const nonce = saltedNonce(sealed.subarray(0, SALT_BYTES), aad);
  openings.add(key, nonce, sealed.subarray(SALT_BYTES), aad);
  return true;
}

/**
 * Openings of what {@link sealSalted} made under one key, gathered to open together: on the
 * platform's cores with their nonces and subkeys made there too, where it opens them so
 * (`PlatformAead.openSaltedMany`, for {@link OPEN_MANY_AT_LEAST} or more); else each nonce
 * made here, as {@link addSalted} adds them to {@link XChaChaOpenings}.
 */
export class SaltedOpenings {
  readonly #key: Uint8Array;
  readonly #openMany = manyAtOnce().openSaltedMany;
  readonly #batch: SaltedBatch | undefined;
  readonly #each: XChaChaOpenings | undefined;
  #at = 0;

  /** For up to `count` openings under `key`, of `bytes` of associated data and sealed values at most. */
  constructor(key: Uint8Array, count: number, bytes: number) {
    checkKey(key);
    this.#key = key;
    if (this.#openMany && count >= OPEN_MANY_AT_LEAST)
      this.#batch = {
        count: 0,
        // The platform wipes the batch's key: a copy.
        key: key.slice(),
        salts: new Uint8Array(SALT_BYTES * count),
        bytes: new Uint8Array(bytes),
        ends: new Uint32Array(2 * count),
      };
    else this.#each = new XChaChaOpenings(count, bytes);
  }

  /** Adds the opening of `sealed` bound to `aad`; false (and nothing added) when too short to be one. */
  add(sealed: Uint8Array, aad: Uint8Array): boolean {
    const batch = this.#batch;
    if (!batch) return addSalted(this.#each!, this.#key, sealed, aad);
    if (sealed.length < SALTED_OVERHEAD) return false;
    const i = batch.count++;
    batch.salts.set(sealed.subarray(0, SALT_BYTES), SALT_BYTES * i);
    batch.bytes.set(aad, this.#at);
    batch.ends[2 * i] = this.#at += aad.length;
    const body = sealed.subarray(SALT_BYTES);
    batch.bytes.set(body, this.#at);
    batch.ends[2 * i + 1] = this.#at += body.length;
    return true;
  }

  /**
   * The plaintexts, in the order added, `undefined` where one does not open. Rejects when the
   * platform fails; the batch is then gone, and the caller opens what it holds another way.
   */
  open(): Promise<Array<Uint8Array | undefined>> {
    return this.#batch ? this.#openMany!(this.#batch) : this.#each!.open();
  }
}

/**
 * What `PlatformAead.openSaltedMany` gives for `batch`, opened one at a time in this thread: the
 * plaintexts, `undefined` where one does not open. Wipes the batch's key after.
 */
export function openSaltedEach(batch: SaltedBatch): Array<Uint8Array | undefined> {
  const { count, key, salts, bytes, ends } = batch;
  const out: Array<Uint8Array | undefined> = [];
  try {
    eachPair(bytes, ends, count, (i, aad, sealed) => {
      try {
        const salt = salts.subarray(SALT_BYTES * i, SALT_BYTES * (i + 1));
        out.push(xchachaOpen(key, saltedNonce(salt, aad), sealed, aad));
      } catch {
        out.push(undefined);
      }
    });
  } finally {
    key.fill(0);
  }
  return out;
}

/** Opens what {@link sealSalted} made; a wrong key, wrong `aad` or any tampering is `invalid_version`. */
export function openSalted(key: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Uint8Array {
  checkKey(key);
  if (sealed.length < SALTED_OVERHEAD) {
    throw new MincaError('invalid_version', 'sealed value is too short to open');
  }
  const saltBytes = sealed.subarray(0, SALT_BYTES);
  try {
    return xchachaOpen(key, saltedNonce(saltBytes, aad), sealed.subarray(SALT_BYTES), aad);
  } catch (cause) {
    throw new MincaError('invalid_version', 'sealed value does not open under this key', { cause });
  }
}
