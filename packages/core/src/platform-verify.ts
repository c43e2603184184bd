/**
 * Ed25519 verification by the platform's own code, where a node was handed it
 * (`PlatformCrypto.ed25519Verifier`): `node:crypto`'s asynchronous `verify` runs on the same
 * thread pool as WebCrypto's, with the same OpenSSL, but costs the calling thread a third as
 * much per call (no WebIDL conversion of every argument), which is what a joining device's main
 * thread spends on each version it takes in. Checked first to agree with RFC 8032's strict rules,
 * and taken process-wide, as the hash and cipher are (`primitives.ts`): every caller gets the
 * same answers either way.
 */
import { randomBytes } from '@noble/ciphers/utils.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { MincaError } from './errors.js';
import { KeyCache } from './key-cache.js';
import type { PlatformCrypto, SignatureCheck } from './keys.js';

/** Checks one signature by one public key; never rejects. */
export type VerifyFunction = (message: Uint8Array, signature: Uint8Array) => Promise<boolean>;

/** The installed platform's verifier factory, and a verifier per public key already made. */
let platformVerifier: ((publicKey: Uint8Array) => VerifyFunction) | undefined;
let installed: PlatformCrypto | undefined;
const verifiers = new KeyCache<VerifyFunction>((publicKey) => platformVerifier!(publicKey));
/** The installed platform's checks of many at once, where it gives them. */
let platformVerifyMany: ((checks: readonly SignatureCheck[]) => Promise<boolean[]>) | undefined;
const checked = new WeakSet<PlatformCrypto>();

/**
 * Whether the platform's verifier says `signature` is `publicKey`'s of `message`, or `undefined`
 * when no platform verifier is in use (the caller then verifies its own way).
 */
export function verifyByPlatform(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> | undefined {
  if (!platformVerifier) return undefined;
  let verify: VerifyFunction;
  try {
    verify = verifiers.of(publicKey);
  } catch {
    return Promise.resolve(false); // A key the platform refuses verifies nothing.
  }
  return verify(message, signature).then(
    (ok) => ok === true,
    () => false,
  );
}

/**
 * `verify`'s answers for those of `checks` whose key and signature are of Ed25519's lengths, and
 * false for the others, which verify nothing: one for each check, in order.
 */
export async function ofEd25519Lengths(
  checks: readonly SignatureCheck[],
  verify: (sent: readonly SignatureCheck[]) => Promise<readonly unknown[]>,
): Promise<boolean[]> {
  const sent = checks.filter((c) => c.publicKey.length === 32 && c.signature.length === 64);
  const oks = sent.length === 0 ? [] : await verify(sent);
  let next = 0;
  return checks.map((c) => (sent[next] === c ? oks[next++] === true : false));
}

/**
 * Whether each of `checks` verifies by the platform, or `undefined` when no platform verifier is
 * in use: all in one call where it checks many at once, else each through its verifier.
 */
export function verifyManyByPlatform(
  checks: readonly SignatureCheck[],
): Promise<boolean[]> | undefined {
  if (!platformVerifier) return undefined;
  const each = (list: readonly SignatureCheck[]) =>
    Promise.all(list.map((c) => verifyByPlatform(c.publicKey, c.message, c.signature)!));
  const many = platformVerifyMany;
  if (!many) return each(checks);
  // Where the platform fails or answers for another number of checks, each is checked alone:
  // a check never passes for the platform's fault, nor a whole batch fails for it.
  return ofEd25519Lengths(checks, (sent) =>
    many(sent).then(
      (oks) => (Array.isArray(oks) && oks.length === sent.length ? oks : each(sent)),
      () => each(sent),
    ),
  );
}

/** Flips one bit of a copy. */
function flipped(bytes: Uint8Array, at: number): Uint8Array {
  const out = bytes.slice();
  out[at]! ^= 1;
  return out;
}

/** S + L for S: the same point equation, but a scalar past the group order, which RFC 8032 refuses. */
function withLargeScalar(signature: Uint8Array): Uint8Array {
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i]!);
  s += ed25519.Point.Fn.ORDER; // Below 2^253: it fits in the 32 bytes.
  const out = signature.slice();
  for (let i = 32; i < 64; i++, s >>= 8n) out[i] = Number(s & 0xffn);
  return out;
}

/**
 * Checks the platform's verifier, where it gives one, against RFC 8032's strict rules: a valid
 * signature verifies; a changed message, signature or key, and a scalar not below the group
 * order (which a verifier reducing it first would accept), do not. `invalid_input` otherwise.
 */
export async function checkPlatformVerify(platform: PlatformCrypto): Promise<void> {
  if (!platform.ed25519Verifier || checked.has(platform)) return;
  const secret = ed25519.utils.randomSecretKey();
  const publicKey = ed25519.getPublicKey(secret);
  const other = ed25519.getPublicKey(ed25519.utils.randomSecretKey());
  const message = randomBytes(64);
  const signature = ed25519.sign(message, secret);
  const cases: Array<[Uint8Array, Uint8Array, Uint8Array, boolean]> = [
    [publicKey, message, signature, true],
    [publicKey, flipped(message, 5), signature, false],
    [publicKey, message, flipped(signature, 3), false],
    [publicKey, message, flipped(signature, 40), false],
    [other, message, signature, false],
    [publicKey, message, withLargeScalar(signature), false],
  ];
  // All at once and four times over, so a platform batching checks made together (on its
  // workers) is checked on the path versions coming in take.
  const all = [...cases, ...cases, ...cases, ...cases];
  let oks: unknown[];
  let many: unknown;
  try {
    oks = await Promise.all(
      all.map(([key, m, sig]) => platform.ed25519Verifier!(key.slice())(m, sig)),
    );
    // Checking many at once answers as checking each does.
    many = await platform.ed25519VerifyMany?.(
      all.map(([key, m, sig]) => ({ publicKey: key.slice(), message: m, signature: sig })),
    );
  } catch (cause) {
    throw new MincaError('invalid_input', 'NodeConfig.crypto could not verify', { cause });
  }
  if (many !== undefined) {
    if (!Array.isArray(many) || many.length !== all.length)
      throw new MincaError(
        'invalid_input',
        "NodeConfig.crypto's ed25519VerifyMany answers wrongly",
      );
    oks = [...oks, ...many];
  }
  if (oks.some((ok, i) => ok !== all[i % all.length]![3])) {
    throw new MincaError(
      'invalid_input',
      "NodeConfig.crypto's Ed25519 verifies otherwise than RFC 8032 strictly; refusing to use it",
    );
  }
  checked.add(platform);
}

/** Verifies through `platform` from now on, in this whole process (after {@link checkPlatformVerify}). */
export async function usePlatformVerify(platform: PlatformCrypto): Promise<void> {
  const factory = platform.ed25519Verifier;
  if (!factory) return;
  if (installed === platform) return;
  await checkPlatformVerify(platform);
  platformVerifier = (publicKey) => factory.call(platform, publicKey);
  const many = platform.ed25519VerifyMany;
  platformVerifyMany = many && ((checks) => many.call(platform, checks));
  installed = platform;
  verifiers.clear();
}

/** Back to the runtime's own verification, for tests comparing the two. */
export function useOwnVerify(): void {
  platformVerifier = undefined;
  platformVerifyMany = undefined;
  installed = undefined;
  verifiers.clear();
}
