/**
 * `node:crypto` (Node, Bun, Deno) as a node's {@link PlatformCrypto}: handed in, never
 * imported, so core still runs where there is none. Its synchronous Ed25519 signs about four
 * times as fast as WebCrypto one message at a time, which is what puts made one after another
 * wait for; its SHA-256 and ChaCha20-Poly1305 (OpenSSL's) are two to three times @noble's.
 *
 * Given `node:worker_threads` too, it signs the versions of a `putMany` on `threads` worker
 * threads, while the calling thread seals the next ones (under batch signatures, which leave
 * the workers little to sign, the workers seal them too), and opens the bodies of a listing
 * there while the calling thread reads and decodes the next ones.
 *
 * ```ts
 * import * as crypto from 'node:crypto';
 * import { availableParallelism } from 'node:os';
 * import * as workers from 'node:worker_threads';
 * const node = await createNode({
 *   stores,
 *   crypto: nodeCrypto(crypto, { workers, threads: Math.max(1, availableParallelism() - 1) }),
 * });
 * ```
 */
import { base64urlnopad } from '@scure/base';
import { CryptoPool, type WorkerThreadsModule } from './crypto-pool.js';
import { KeyCache } from './key-cache.js';
import type { PlatformAead, PlatformCrypto, SignatureCheck } from './keys.js';
import { ofEd25519Lengths } from './platform-verify.js';
import { openSaltedEach } from './seal.js';

export type { WorkerThreadsModule } from './crypto-pool.js';

/** How {@link nodeCrypto} signs and opens many messages at once. */
export interface NodeCryptoOptions {
  /**
   * `node:worker_threads`: many signatures at once (a `putMany`) are made, many checked at once
   * (the versions of a message coming in), and many bodies at once opened (a listing) or sealed
   * (a batch-signed `putMany`), on worker threads. Workers without a job never keep the process
   * alive; where they can't start, everything is done in the calling thread. A worker that
   * fails fails the write (`unavailable`), which then stores nothing; checks and listings are
   * then done in the calling thread.
   */
  workers?: WorkerThreadsModule;
  /**
   * Worker threads at most (2 by default). For `putMany`, one fewer than the cores
   * (`os.availableParallelism() - 1`, at least 1): the calling thread seals and stores the
   * versions meanwhile, and is the busier.
   */
  threads?: number;
}

/** What `createCipheriv` and `createDecipheriv` give for `chacha20-poly1305`. */
interface AeadStream {
  setAAD(aad: Uint8Array, options: { plaintextLength: number }): unknown;
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
}

/** The part of `node:crypto` this uses. */
export interface NodeCryptoModule {
  createPrivateKey(input: {
    key: { kty: string; crv: string; d: string; x: string };
    format: 'jwk';
  }): unknown;
  sign(algorithm: null, data: Uint8Array, key: never): Uint8Array;
  createPublicKey(input: { key: { kty: string; crv: string; x: string }; format: 'jwk' }): unknown;
  verify(
    algorithm: null,
    data: Uint8Array,
    key: never,
    signature: Uint8Array,
    callback: (error: Error | null, ok: boolean) => void,
  ): void;
  createHash(algorithm: 'sha256'): {
    update(data: Uint8Array): { digest(): Uint8Array; digest(encoding: 'hex'): string };
  };
  createCipheriv(
    algorithm: 'chacha20-poly1305',
    key: Uint8Array,
    iv: Uint8Array,
    options: { authTagLength: 16 },
  ): AeadStream & { getAuthTag(): Uint8Array };
  createDecipheriv(
    algorithm: 'chacha20-poly1305',
    key: Uint8Array,
    iv: Uint8Array,
    options: { authTagLength: 16 },
  ): AeadStream & { setAuthTag(tag: Uint8Array): unknown };
}

/** `crypto.hash` (Node 20.12+, 21.7+): one call, no hash object. */
type OneShotHash = (algorithm: 'sha256', data: Uint8Array, encoding: 'latin1' | 'hex') => string;

/**
 * A digest given as a latin1 string, as bytes of their own. Node makes a string of a digest
 * several times faster than a Buffer (about 0.3 µs against 2 for a small version's id).
 */
function latin1Digest(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/**
 * A Node Buffer's bytes as a plain Uint8Array of their own: a view when the Buffer has its
 * memory to itself (a hash's does), else a copy, since a Buffer may share a pool.
 */
const plain = (bytes: Uint8Array) =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? new Uint8Array(bytes.buffer)
    : new Uint8Array(bytes);

function aead(crypto: NodeCryptoModule): PlatformAead {
  const options = { authTagLength: 16 } as const;
  return {
    seal(key, nonce, plaintext, aad) {
      const cipher = crypto.createCipheriv('chacha20-poly1305', key, nonce, options);
      cipher.setAAD(aad, { plaintextLength: plaintext.length });
      const body = cipher.update(plaintext);
      const rest = cipher.final();
      const tag = cipher.getAuthTag();
      const out = new Uint8Array(body.length + rest.length + tag.length);
      out.set(body);
      out.set(rest, body.length);
      out.set(tag, body.length + rest.length);
      return out;
    },
    open(key, nonce, sealed, aad) {
      if (sealed.length < 16) return undefined;
      const length = sealed.length - 16;
      const decipher = crypto.createDecipheriv('chacha20-poly1305', key, nonce, options);
      decipher.setAuthTag(sealed.subarray(length));
      decipher.setAAD(aad, { plaintextLength: length });
      const body = decipher.update(sealed.subarray(0, length));
      try {
        decipher.final();
      } catch {
        return undefined; // The tag does not match.
      }
      return plain(body);
    },
  };
}

/** A signature check waiting for its turn's batch. */
interface Queued extends SignatureCheck {
  resolve(ok: boolean): void;
}

/**
 * Signature checks asked for one at a time in one go (a message's batch roots) checked together
 * by `verifyMany`, once the caller's synchronous run ends.
 */
function verifyBatcher(verifyMany: (checks: readonly SignatureCheck[]) => Promise<boolean[]>) {
  let queued: Queued[] = [];
  const flush = () => {
    const batch = queued;
    queued = [];
    void verifyMany(batch).then((oks) => {
      batch.forEach((c, i) => {
        c.resolve(oks[i] === true);
      });
    });
  };
  return (check: SignatureCheck) =>
    new Promise<boolean>((resolve) => {
      if (queued.length === 0) void Promise.resolve().then(flush);
      queued.push({ ...check, resolve });
    });
}

/**
 * A check by Ed25519 public key `publicKey` on libuv's thread pool (node:crypto's `verify`
 * with a callback, as WebCrypto runs it): whether `signature` verifies `message`; never rejects.
 */
function verifierHere(crypto: NodeCryptoModule, publicKey: Uint8Array) {
  const key = crypto.createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: base64urlnopad.encode(publicKey) },
    format: 'jwk',
  });
  return (message: Uint8Array, signature: Uint8Array) =>
    new Promise<boolean>((resolve) => {
      try {
        crypto.verify(null, message, key as never, signature, (error, ok) =>
          resolve(error === null && ok === true),
        );
      } catch {
        resolve(false); // A signature of the wrong length, say.
      }
    });
}

/** An Ed25519 key as JWK: the one private key format without ASN.1 framing. */
const jwkOf = (secret: Uint8Array, publicKey: Uint8Array) =>
  ({
    kty: 'OKP',
    crv: 'Ed25519',
    d: base64urlnopad.encode(secret),
    x: base64urlnopad.encode(publicKey),
  }) as const;

/**
 * Ed25519, SHA-256 and ChaCha20-Poly1305 through `node:crypto`, and Ed25519 on worker threads
 * when given `options.workers`. Pass it as `NodeConfig.crypto`.
 */
export function nodeCrypto(
  crypto: NodeCryptoModule,
  options: NodeCryptoOptions = {},
): PlatformCrypto {
  const hash = (crypto as { hash?: OneShotHash }).hash;
  const signer = (secret: Uint8Array, publicKey: Uint8Array) => {
    const key = crypto.createPrivateKey({ key: jwkOf(secret, publicKey), format: 'jwk' });
    // A plain Uint8Array of its own, not a Node Buffer.
    return (message: Uint8Array) => new Uint8Array(crypto.sign(null, message, key as never));
  };
  const threads = options.threads ?? 2;
  if (!Number.isInteger(threads) || threads < 1)
    throw new TypeError('nodeCrypto threads must be a positive integer');
  // One pool for every key and job: a node signs with one key, and the workers take the key
  // per job.
  let pool: CryptoPool | undefined;
  let batcher: ReturnType<typeof verifyBatcher> | undefined;
  let heres: KeyCache<(message: Uint8Array, signature: Uint8Array) => Promise<boolean>> | undefined;
  const hereOf = (publicKey: Uint8Array) =>
    (heres ??= new KeyCache((key) => verifierHere(crypto, key))).of(publicKey);
  const checkHere = (c: SignatureCheck) => hereOf(c.publicKey)(c.message, c.signature);
  const { workers } = options;
  const poolOf = (workers: WorkerThreadsModule) => (pool ??= new CryptoPool(workers, threads));
  // On the workers, the pool leaving a few (and a share beside theirs) to libuv's pool; where
  // the workers fail, all there: a check never fails for the workers' fault, nor passes.
  const verifyMany =
    workers &&
    ((checks: readonly SignatureCheck[]) =>
      ofEd25519Lengths(checks, (sent) =>
        poolOf(workers)
          .verify(sent, checkHere)
          .catch(() => Promise.all(sent.map(checkHere))),
      ));
  const cipher = aead(crypto);
  return {
    ed25519Signer: signer,
    ed25519Verifier(publicKey) {
      if (!verifyMany) return hereOf(publicKey);
      const batch = (batcher ??= verifyBatcher(verifyMany));
      const own = publicKey.slice();
      return (message, signature) =>
        signature.length === 64
          ? batch({ publicKey: own, message, signature })
          : Promise.resolve(false);
    },
    ...(workers && verifyMany
      ? {
          ed25519VerifyMany: verifyMany,
          ed25519ManySigner(secret: Uint8Array, publicKey: Uint8Array) {
            const jwk = jwkOf(secret, publicKey);
            const here = signer(secret, publicKey);
            const on = poolOf(workers);
            return (messages: readonly Uint8Array[]) => on.sign(jwk, messages, here);
          },
        }
      : {}),
    ...(typeof hash === 'function'
      ? {
          sha256: (bytes) => latin1Digest(hash('sha256', bytes, 'latin1')),
          sha256Hex: (bytes) => hash('sha256', bytes, 'hex'),
        }
      : {
          sha256: (bytes) => plain(crypto.createHash('sha256').update(bytes).digest()),
          sha256Hex: (bytes) => crypto.createHash('sha256').update(bytes).digest('hex'),
        }),
    chacha20poly1305: workers
      ? {
          ...cipher,
          openMany: (batch) => poolOf(workers).open(batch, cipher.open),
          sealMany: (batch) => poolOf(workers).seal(batch, cipher.seal),
          openSaltedMany: (batch) => poolOf(workers).openSalted(batch, openSaltedEach),
        }
      : cipher,
  };
}
