/**
 * Ed25519 signing keys and their `did:key` identities.
 * A {@link SigningKey} never shows its secret: not in `toString`, JSON, inspection or errors.
 */

import { randomBytes } from '@noble/ciphers/utils.js';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { base58, base64urlnopad } from '@scure/base';
import { compareBytes, latin1 } from './bytes.js';
import { MincaError } from './errors.js';
import { KeyCache } from './key-cache.js';
import { verifyByPlatform, verifyManyByPlatform } from './platform-verify.js';
import { checkPrimitives, sha256 } from './primitives.js';

/** The multicodec prefix of an Ed25519 public key (0xed, varint-encoded). */
const ED25519_PUB = [0xed, 0x01];
const DID_PREFIX = 'did:key:z';

/** The `did:key` of an Ed25519 public key. */
export function didFromPublicKey(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new TypeError('publicKey must be 32 bytes');
  const bytes = new Uint8Array(34);
  bytes.set(ED25519_PUB);
  bytes.set(publicKey, 2);
  return DID_PREFIX + base58.encode(bytes);
}

/** The Ed25519 public key a `did:key` names; `invalid_input` for anything else. */
export function publicKeyFromDid(did: string): Uint8Array {
  if (typeof did === 'string' && did.startsWith(DID_PREFIX) && did.length <= 64) {
    try {
      const bytes = base58.decode(did.slice(DID_PREFIX.length));
      if (bytes.length === 34 && bytes[0] === ED25519_PUB[0] && bytes[1] === ED25519_PUB[1]) {
        return bytes.slice(2);
      }
    } catch {
      // Falls through to the error below.
    }
  }
  throw new MincaError('invalid_input', 'not an Ed25519 did:key');
}

/** The X25519 public key of a `did:key` (its Ed25519 key's Montgomery form). */
export function montgomeryOf(did: string): Uint8Array {
  return ed25519.utils.toMontgomery(publicKeyFromDid(did));
}

/** The part of WebCrypto's SubtleCrypto this uses; a platform object, so typed here. */
interface Subtle {
  importKey(
    format: 'raw' | 'jwk',
    key: Uint8Array | Record<string, string>,
    algorithm: { name: 'Ed25519' },
    extractable: boolean,
    uses: string[],
  ): Promise<unknown>;
  sign(algorithm: { name: 'Ed25519' }, key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
  verify(
    algorithm: { name: 'Ed25519' },
    key: unknown,
    signature: Uint8Array,
    data: Uint8Array,
  ): Promise<boolean>;
}

const subtle = (globalThis as { crypto?: { subtle?: Subtle } }).crypto?.subtle;
/** Public keys imported into WebCrypto: importing costs about as much as a verify. */
const imported = new KeyCache((publicKey) =>
  subtle!.importKey('raw', publicKey, { name: 'Ed25519' }, false, ['verify']),
);
let webCrypto: Promise<boolean> | undefined;

/**
 * Whether this runtime's WebCrypto signs and verifies Ed25519 (Node 20+, current browsers, Bun,
 * Deno): verifying is about ten times faster than @noble/curves, which is the fallback, and
 * signing four times (thirty when signatures overlap, as WebCrypto runs them off the main thread).
 */
function webCryptoEd25519(): Promise<boolean> {
  webCrypto ??= (async () => {
    if (!subtle) return false;
    try {
      const secret = ed25519.utils.randomSecretKey();
      const raw = ed25519.getPublicKey(secret);
      const message = new Uint8Array([1]);
      const publicKey = await subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
      const signature = new Uint8Array(
        await subtle.sign({ name: 'Ed25519' }, await importSecret(secret, raw), message),
      );
      // Deterministic (RFC 8032): WebCrypto must give noble's signature, byte for byte.
      return (
        compareBytes(signature, ed25519.sign(message, secret)) === 0 &&
        (await subtle.verify({ name: 'Ed25519' }, publicKey, signature, message))
      );
    } catch {
      return false;
    }
  })();
  return webCrypto;
}

/** A secret as a WebCrypto signing key: JWK, the one private format without ASN.1 framing. */
function importSecret(secret: Uint8Array, publicKey: Uint8Array): Promise<unknown> {
  const b64 = (bytes: Uint8Array) => base64urlnopad.encode(bytes);
  return subtle!.importKey(
    'jwk',
    { kty: 'OKP', crv: 'Ed25519', d: b64(secret), x: b64(publicKey) },
    { name: 'Ed25519' },
    false,
    ['sign'],
  );
}

/** True when `signature` is `did`'s Ed25519 signature of `message`. Never rejects. */
export async function verifySignature(
  did: string,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  let publicKey: Uint8Array;
  try {
    publicKey = publicKeyFromDid(did);
  } catch {
    return false;
  }
  return verifyEd25519(publicKey, message, signature);
}

/**
 * True when `signature` is the Ed25519 signature of `message` by the 32-byte `publicKey`,
 * strictly by RFC 8032. Never rejects. Through WebCrypto, calls made together run at once, on
 * the platform's threads: a batch of them uses every core.
 */
export async function verifyEd25519(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  try {
    if (publicKey.length !== 32) return false;
    // The platform's own, where a node was handed one (checked to be as strict).
    const byPlatform = verifyByPlatform(publicKey, message, signature);
    if (byPlatform) return await byPlatform;
    // Strict RFC 8032 (not ZIP-215), as WebCrypto verifies: every node must agree on every signature.
    if (!(await webCryptoEd25519()))
      return ed25519.verify(signature, message, publicKey, { zip215: false });
    const key = await imported.of(publicKey);
    return await subtle!.verify({ name: 'Ed25519' }, key, signature, message);
  } catch {
    return false;
  }
}

/** One signature to check: a 32-byte public key, a message, a 64-byte signature. */
export interface SignatureCheck {
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}

/**
 * Whether each check's signature is its key's of its message, all at once: in one call to the
 * platform where it checks many (a message's versions each carry their own signature), else
 * each as {@link verifyEd25519} does. Never rejects.
 */
export async function verifyEd25519Many(checks: readonly SignatureCheck[]): Promise<boolean[]> {
  const byPlatform = verifyManyByPlatform(checks);
  if (byPlatform) return byPlatform;
  return Promise.all(checks.map((c) => verifyEd25519(c.publicKey, c.message, c.signature)));
}

/** Signs a message with one key: what a platform's own Ed25519 gives for a key (see {@link PlatformCrypto}). */
export type SignFunction = (message: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/** Signs several messages with one key, giving their signatures in order. */
export type ManySignFunction = (messages: readonly Uint8Array[]) => Promise<Uint8Array[]>;

/**
 * A platform's own cryptography, handed to a node (`NodeConfig.crypto`), since core imports no
 * platform API. Node's `node:crypto` signs Ed25519 one message at a time about four times
 * faster than WebCrypto (see `nodeCrypto`). Whatever signs must give RFC 8032's signature, byte
 * for byte: `createNode` checks that at start.
 */
export interface PlatformCrypto {
  /** A function signing with the key of this 32-byte secret and its public key. */
  ed25519Signer(secret: Uint8Array, publicKey: Uint8Array): SignFunction;
  /**
   * A function signing many messages at once with that key, optional: on several cores where
   * the platform can (`nodeCrypto` with worker threads), for `putMany`. Without it, a node
   * makes the signatures of a batch together through `ed25519Signer`.
   */
  ed25519ManySigner?(secret: Uint8Array, publicKey: Uint8Array): ManySignFunction;
  /**
   * SHA-256 in one call, optional: version ids, batch trees and nonces are hashed with it
   * instead of @noble/hashes. Checked at start to give the same digests.
   */
  sha256?(bytes: Uint8Array): Uint8Array;
  /**
   * SHA-256 as 64 lowercase hex characters in one call, optional: version ids are hashed with
   * it, where building the digest's bytes and then their hex costs several times as much (in
   * Node, 2 µs against 0.3). Checked at start to give the same digests.
   */
  sha256Hex?(bytes: Uint8Array): string;
  /**
   * RFC 8439 ChaCha20-Poly1305 (12-byte nonce), optional: bodies are sealed and opened with it
   * (as XChaCha20-Poly1305, built on it) instead of @noble/ciphers. Checked at start to give
   * the same bytes and to refuse what was changed.
   */
  chacha20poly1305?: PlatformAead;
  /**
   * A function verifying Ed25519 signatures by this 32-byte public key, optional: incoming
   * versions are then verified with it instead of WebCrypto. It must resolve (not throw) to
   * whether the signature is valid by RFC 8032's strict rules; checked at start.
   */
  ed25519Verifier?(
    publicKey: Uint8Array,
  ): (message: Uint8Array, signature: Uint8Array) => Promise<boolean>;
  /**
   * Many signature checks at once, optional, beside `ed25519Verifier`: whether each verifies,
   * in order, by the same rules (on several cores where the platform can: `nodeCrypto` with
   * worker threads). A message's versions are then checked in one call, rather than in a call
   * and a promise each that live until the answer comes. Checked at start as `ed25519Verifier`
   * is; where it rejects, each is checked through `ed25519Verifier`.
   */
  ed25519VerifyMany?(checks: readonly SignatureCheck[]): Promise<boolean[]>;
}

/**
 * A platform's ChaCha20-Poly1305 (RFC 8439): 32-byte key, 12-byte nonce, 16-byte tag. Both run
 * synchronously; the key and nonce are lent for the call (copy them to keep them).
 */
export interface PlatformAead {
  /** Ciphertext ‖ tag. */
  seal(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Uint8Array;
  /** The plaintext of ciphertext ‖ tag, or `undefined` when the tag does not match. */
  open(
    key: Uint8Array,
    nonce: Uint8Array,
    sealed: Uint8Array,
    aad: Uint8Array,
  ): Uint8Array | undefined;
  /**
   * Many openings at once, optional: on several cores where the platform can (`nodeCrypto`
   * with worker threads), for listings. The plaintexts in order, `undefined` where the tag does
   * not match, as `open` would give each. The batch is the platform's to take (its buffers may
   * be moved to another thread) and its keys to wipe. Checked at start against `open`.
   */
  openMany?(batch: AeadBatch): Promise<Array<Uint8Array | undefined>>;
  /**
   * Many sealings at once, optional: off the calling thread where the platform can
   * (`nodeCrypto` with worker threads), for `putMany`. Each one's ciphertext ‖ tag in order,
   * as `seal` would give it; `bytes` holds each one's associated data, then its plaintext. The
   * batch is the platform's to take and its keys to wipe. Checked at start against `seal`.
   */
  sealMany?(batch: AeadBatch): Promise<Uint8Array[]>;
  /**
   * Many openings of salted seals at once (version bodies, spec 05 §3.3), optional: as
   * `openMany`, but each one is XChaCha20-Poly1305 under the batch's key, its nonce the first 24
   * bytes of SHA-256(salt ‖ associated data), made there too, so the calling thread hashes
   * nothing. The batch is the platform's to take and its key to wipe. Checked at start against
   * noble's.
   */
  openSaltedMany?(batch: SaltedBatch): Promise<Array<Uint8Array | undefined>>;
}

/** Many openings of salted seals under one key, for {@link PlatformAead.openSaltedMany}. */
export interface SaltedBatch {
  /** How many openings. */
  count: number;
  /** The XChaCha20-Poly1305 key they were all sealed under, 32 bytes. */
  key: Uint8Array<ArrayBuffer>;
  /** Their salts, 8 bytes each. */
  salts: Uint8Array<ArrayBuffer>;
  /** Each one's associated data, then its ciphertext ‖ tag, back to back. */
  bytes: Uint8Array<ArrayBuffer>;
  /** Where each of those ends in `bytes`: two per opening. */
  ends: Uint32Array<ArrayBuffer>;
}

/**
 * Many ChaCha20-Poly1305 openings (or sealings) packed together, for
 * {@link PlatformAead.openMany} and {@link PlatformAead.sealMany}.
 */
export interface AeadBatch {
  /** How many openings. */
  count: number;
  /** Their keys, 32 bytes each, back to back. */
  keys: Uint8Array<ArrayBuffer>;
  /** Their nonces, 12 bytes each. */
  nonces: Uint8Array<ArrayBuffer>;
  /** Each one's associated data, then its ciphertext ‖ tag (a sealing's plaintext), back to back. */
  bytes: Uint8Array<ArrayBuffer>;
  /** Where each of those ends in `bytes`: two per opening. */
  ends: Uint32Array<ArrayBuffer>;
}

/**
 * Checks that `platform` signs as RFC 8032 does, byte for byte, and that its SHA-256 and
 * ChaCha20-Poly1305, where it gives them, give @noble's bytes; `invalid_input` otherwise, so a
 * node never signs or seals what others would refuse.
 */
export async function checkPlatformCrypto(platform: PlatformCrypto): Promise<void> {
  checkPrimitives(platform);
  const secret = ed25519.utils.randomSecretKey();
  const publicKey = ed25519.getPublicKey(secret);
  const message = randomBytes(48);
  let signature: Uint8Array | undefined;
  try {
    signature = await platform.ed25519Signer(secret.slice(), publicKey.slice())(message);
  } catch (cause) {
    throw new MincaError('invalid_input', 'NodeConfig.crypto could not sign', { cause });
  }
  const expected = ed25519.sign(message, secret);
  let many: unknown = [expected, expected];
  try {
    const signMany = platform.ed25519ManySigner?.(secret.slice(), publicKey.slice());
    if (signMany) many = await signMany([message, message]);
  } catch (cause) {
    throw new MincaError('invalid_input', 'NodeConfig.crypto could not sign', { cause });
  }
  const same = (s: unknown) => s instanceof Uint8Array && compareBytes(s, expected) === 0;
  if (!same(signature) || !Array.isArray(many) || many.length !== 2 || !many.every(same))
    throw new MincaError(
      'invalid_input',
      'NodeConfig.crypto signs differently from RFC 8032 Ed25519; refusing to sign with it',
    );
}

/** Throws a `TypeError` unless `secret` is 32 bytes, as an Ed25519 secret is. */
function checkSecret(secret: Uint8Array): void {
  if (!(secret instanceof Uint8Array) || secret.length !== 32)
    throw new TypeError('secret must be a Uint8Array of 32 bytes');
}

/** Public keys a signing key keeps of the keys made like it (one a space, 32 bytes each). */
const LIKE_KEYS_KEPT = 16_384;

/** An Ed25519 key pair that signs as its `did`. */
export class SigningKey {
  readonly #secret: Uint8Array;
  /** The platform's signer, when the key signs through one ({@link SigningKey.signingWith}). */
  readonly #platform: SignFunction | undefined;
  /** The platform's signer of many messages, when it gives one. */
  readonly #platformMany: ManySignFunction | undefined;
  /** The platform it signs through, for keys made {@link SigningKey.like} it. */
  readonly #platformCrypto: PlatformCrypto | undefined;
  /** The secret imported into WebCrypto, on first use (resolving to undefined if refused). */
  #webKey: Promise<unknown> | undefined;
  /** The public key, 32 bytes. */
  readonly publicKey: Uint8Array;
  /** The `did:key` this key signs as. */
  readonly did: string;
  /**
   * Public keys of the keys made {@link like} this one, by the SHA-256 of their secrets, the
   * one used longest ago dropped past {@link LIKE_KEYS_KEPT}: a space's access key is made
   * again each time the space opens, and deriving its public key is the most of that.
   */
  #likePublicKeys: Map<string, Uint8Array> | undefined;

  private constructor(secret: Uint8Array, platform?: PlatformCrypto, publicKey?: Uint8Array) {
    this.#secret = secret;
    this.publicKey = publicKey ?? ed25519.getPublicKey(secret);
    this.did = didFromPublicKey(this.publicKey);
    this.#platform = platform?.ed25519Signer(secret.slice(), this.publicKey.slice());
    this.#platformMany = platform?.ed25519ManySigner?.(secret.slice(), this.publicKey.slice());
    this.#platformCrypto = platform;
  }

  /**
   * The key of the 32-byte `secret`, signing as this one does: through its platform when it
   * has one (a space's access key signs a proof at every connection to a holder; WebCrypto
   * took several times as long as `node:crypto` for each).
   */
  like(secret: Uint8Array): SigningKey {
    checkSecret(secret);
    const kept = (this.#likePublicKeys ??= new Map());
    const tag = latin1(sha256(secret));
    let publicKey = kept.get(tag);
    if (publicKey) kept.delete(tag);
    else {
      publicKey = ed25519.getPublicKey(secret);
      if (kept.size >= LIKE_KEYS_KEPT) kept.delete(kept.keys().next().value!);
    }
    kept.set(tag, publicKey);
    // A copy: what the key gives out is not what later keys are made from.
    return new SigningKey(secret.slice(), this.#platformCrypto, publicKey.slice());
  }

  /**
   * This key, signing through `platform` (checked with {@link checkPlatformCrypto} first): the
   * same signatures, made by the platform's own Ed25519.
   */
  signingWith(platform: PlatformCrypto): SigningKey {
    return new SigningKey(this.#secret, platform, this.publicKey);
  }

  /** A fresh random key. */
  static generate(): SigningKey {
    return new SigningKey(ed25519.utils.randomSecretKey());
  }

  /** The key whose 32-byte secret is `secret` (as {@link exportSecret} gave). */
  static fromSecret(secret: Uint8Array): SigningKey {
    checkSecret(secret);
    return new SigningKey(secret.slice());
  }

  /** This key's Ed25519 signature of `message` (64 bytes; the same bytes on every runtime). */
  async sign(message: Uint8Array): Promise<Uint8Array> {
    if (this.#platform) return this.#platform(message);
    if (!(await webCryptoEd25519())) return ed25519.sign(message, this.#secret);
    // A key WebCrypto won't take (it took the probe's) is signed by noble: same bytes, slower.
    this.#webKey ??= importSecret(this.#secret, this.publicKey).catch(() => undefined);
    const webKey = await this.#webKey;
    if (!webKey) return ed25519.sign(message, this.#secret);
    return new Uint8Array(await subtle!.sign({ name: 'Ed25519' }, webKey, message));
  }

  /**
   * Signatures of `messages`, in order: by the platform's many-signer where it gave one (on
   * several cores), else made together (WebCrypto runs them off this thread, on every core).
   */
  async signMany(messages: readonly Uint8Array[]): Promise<Uint8Array[]> {
    if (this.#platformMany && messages.length > 1) return this.#platformMany(messages);
    return Promise.all(messages.map((m) => this.sign(m)));
  }

  /**
   * The X25519 shared secret of this key (as its Montgomery form) with the X25519 public key
   * `publicX`: how a key sealed for this DID is opened (spec 05 §7.4).
   */
  agree(publicX: Uint8Array): Uint8Array {
    return x25519.getSharedSecret(ed25519.utils.toMontgomerySecret(this.#secret), publicX);
  }

  /** The secret, for storing it. Keep it out of logs. */
  exportSecret(): Uint8Array {
    return this.#secret.slice();
  }

  toString(): string {
    return `SigningKey(${this.did})`;
  }

  toJSON(): { did: string } {
    return { did: this.did };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }
}
