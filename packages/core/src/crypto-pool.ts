/**
 * Ed25519 signing and verifying and ChaCha20-Poly1305 opening of many messages on a few worker
 * threads, each doing its share with `node:crypto`: how `nodeCrypto` signs a `putMany`, checks
 * the signatures of versions coming in and opens the bodies of a listing on every core. Only
 * the platform's primitives run there, and the salted nonces and XChaCha subkeys of bodies being
 * opened (checked at start against noble's); what is signed, how a body is sealed and what its
 * associated data is stays in core. Core imports no platform API: the caller hands in
 * `node:worker_threads`, and the workers' code is a string run as a CommonJS worker. Where
 * workers can't start, the work is done here, one message after another.
 */
import { eachPair, packParts } from './bytes.js';
import { WORKER_CODE } from './crypto-worker.js';
import { MincaError } from './errors.js';
import type { AeadBatch, SaltedBatch, SignatureCheck } from './keys.js';

/** The part of `node:worker_threads` this uses. */
export interface WorkerThreadsModule {
  Worker: new (code: string, options: { eval: true }) => WorkerHandle;
}

/** The part of a `Worker` this uses. */
export interface WorkerHandle {
  postMessage(value: unknown, transfer?: ArrayBuffer[]): void;
  on(event: 'message', listener: (value: Reply) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  ref(): void;
  unref(): void;
  terminate(): Promise<number>;
}

/** An Ed25519 private key as JWK, as `createPrivateKey` takes it. */
export interface Ed25519Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  d: string;
  x: string;
}

/** Messages (or associated data and sealed values) back to back, and where each ends. */
interface Packed {
  bytes: Uint8Array<ArrayBuffer>;
  ends: Uint32Array<ArrayBuffer>;
}

/** A job, before its number. */
type Job =
  | ({ kind: 'sign'; jwk: Ed25519Jwk } & Packed)
  | ({ kind: 'open' | 'seal'; count: number; keys: Uint8Array; nonces: Uint8Array } & Packed)
  | ({ kind: 'openSalted'; count: number; key: Uint8Array; salts: Uint8Array } & Packed)
  | ({ kind: 'verify'; keys: Uint8Array; signatures: Uint8Array } & Packed);

/** What a job comes back as. */
interface Answer {
  out: Uint8Array;
  lengths?: Int32Array;
}

/**
 * A job's answer: signatures (64 bytes each), or plaintexts back to back with each one's length
 * (-1 where the tag did not match), or sealed values back to back with each one's length, or a
 * byte a signature (1 where it verifies), or why it failed.
 */
type Reply = ({ job: number } & Answer) | { job: number; error: string };

/** `out` cut by `lengths`, back to back: `undefined` for a length below 0. */
function cut(out: Uint8Array, lengths: Int32Array): Array<Uint8Array | undefined> {
  const parts: Array<Uint8Array | undefined> = [];
  let at = 0;
  for (const length of lengths)
    parts.push(length < 0 ? undefined : out.subarray(at, (at += length)));
  return parts;
}

/** Whether a worker has a signing or checking job: long, beside an opening or a sealing. */
const busyWithSignatures = (thread: Thread) =>
  [...thread.pending.values()].some((p) => p.kind === 'sign' || p.kind === 'verify');

/** Fewer messages than this per worker are done here: a round trip costs a few signatures. */
export const MIN_SHARE = 16;

interface Pending {
  kind: Job['kind'];
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: WorkerHandle;
  pending: Map<number, Pending>;
}

/** ChaCha20-Poly1305 opening one: the plaintext, or `undefined` where the tag does not match. */
export type OpenOne = (
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array,
) => Uint8Array | undefined;

/** ChaCha20-Poly1305 sealing one: ciphertext ‖ tag. */
export type SealOne = (
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array,
) => Uint8Array;

/** What `sealMany` gives for `batch`, sealing each with `here`; its keys wiped after. */
export function sealEach(batch: AeadBatch, here: SealOne): Uint8Array[] {
  const out: Uint8Array[] = [];
  eachOf(batch, (key, nonce, plaintext, aad) => out.push(here(key, nonce, plaintext, aad)));
  return out;
}

/** Runs `use` on each of `batch`'s keys, nonces and two parts, then wipes its keys. */
function eachOf(
  batch: AeadBatch,
  use: (key: Uint8Array, nonce: Uint8Array, data: Uint8Array, aad: Uint8Array) => void,
): void {
  const { count, keys, nonces, bytes, ends } = batch;
  try {
    eachPair(bytes, ends, count, (i, aad, data) =>
      use(keys.subarray(32 * i, 32 * i + 32), nonces.subarray(12 * i, 12 * i + 12), data, aad),
    );
  } finally {
    keys.fill(0);
  }
}

/** What `openMany` gives for `batch`, opening each with `here`; its keys wiped after. */
export function openEach(batch: AeadBatch, here: OpenOne): Array<Uint8Array | undefined> {
  const out: Array<Uint8Array | undefined> = [];
  eachOf(batch, (key, nonce, sealed, aad) => out.push(here(key, nonce, sealed, aad)));
  return out;
}

/**
 * Up to `size` workers, started on first use. A worker without a job is unref'd, so an idle
 * pool never keeps the process alive; a worker that fails fails its jobs with
 * `unavailable` and is replaced on the next use.
 */
export class CryptoPool {
  #threads: Thread[] = [];
  #next = 0;
  #job = 0;
  /** Set when workers could not start here: everything is then done in this thread. */
  #unavailable = false;

  constructor(
    private readonly workers: WorkerThreadsModule,
    private readonly size: number,
  ) {}

  /**
   * Signatures of `messages` by the key of `jwk`, in order; `here` signs one in this thread,
   * for a few messages and where workers can't start.
   */
  async sign(
    jwk: Ed25519Jwk,
    messages: readonly Uint8Array[],
    here: (message: Uint8Array) => Uint8Array,
  ): Promise<Uint8Array[]> {
    const shares = this.#shares(messages.length);
    if (shares === 0) return messages.map((m) => here(m));
    const out: Uint8Array[] = [];
    for (const { out: signatures } of await this.#split(messages, shares, (part) => {
      const { bytes, ends } = packParts(part);
      return [{ kind: 'sign', jwk, bytes, ends }, [bytes.buffer, ends.buffer]];
    }))
      for (let i = 0; i < signatures.length; i += 64) out.push(signatures.slice(i, i + 64));
    return out;
  }

  /**
   * Whether each of `checks` is its key's Ed25519 signature of its message (RFC 8032 strictly,
   * as node:crypto verifies); `here` checks one off this thread (node:crypto's thread pool),
   * for a few, where workers can't start, and for one share beside the workers' own: a device
   * taking versions in mostly waits for their checks, and that share uses the core its thread
   * leaves idle (spec 05 §6).
   */
  async verify(
    checks: readonly SignatureCheck[],
    here: (check: SignatureCheck) => Promise<boolean>,
  ): Promise<boolean[]> {
    const shares = this.#shares(checks.length);
    if (shares === 0) return Promise.all(checks.map(here));
    const toWorkers = checks.length - Math.floor(checks.length / (shares + 1));
    const own = Promise.all(checks.slice(toWorkers).map(here));
    const out: boolean[] = [];
    for (const { out: answers } of await this.#split(checks.slice(0, toWorkers), shares, (part) => {
      const keys = new Uint8Array(32 * part.length);
      const signatures = new Uint8Array(64 * part.length);
      part.forEach((c, i) => {
        keys.set(c.publicKey, 32 * i);
        signatures.set(c.signature, 64 * i);
      });
      const { bytes, ends } = packParts(part.map((c) => c.message));
      const request = { kind: 'verify', keys, signatures, bytes, ends } as const;
      return [request, [keys.buffer, signatures.buffer, bytes.buffer, ends.buffer]];
    }))
      for (const answer of answers) out.push(answer === 1);
    out.push(...(await own));
    return out;
  }

  /**
   * The plaintexts of `batch`, in order, `undefined` where the tag does not match: on one
   * worker (a caller wanting more cores sends more batches); by `here`, one at a time, where
   * workers can't start or every one is signing or checking signatures (a joining device's
   * are: an opening queued behind those would hold its caller up longer than opening here).
   * Its buffers move to the worker, which wipes the keys once used.
   */
  async open(batch: AeadBatch, here: OpenOne): Promise<Array<Uint8Array | undefined>> {
    if (!this.#free()) return openEach(batch, here);
    const { out, lengths } = await this.#aead('open', batch);
    return cut(out, lengths!);
  }

  /**
   * The plaintexts of salted seals (`seal.ts`), as {@link open} gives them, their nonces and
   * subkeys made on the worker too; by `here` where {@link open} would open here.
   */
  async openSalted(
    batch: SaltedBatch,
    here: (batch: SaltedBatch) => Array<Uint8Array | undefined>,
  ): Promise<Array<Uint8Array | undefined>> {
    if (!this.#free()) return here(batch);
    const { count, key, salts, bytes, ends } = batch;
    const { out, lengths } = await this.#post(
      { kind: 'openSalted', count, key, salts, bytes, ends },
      [key.buffer, salts.buffer, bytes.buffer, ends.buffer],
    );
    return cut(out, lengths!);
  }

  /**
   * The sealed values (ciphertext ‖ tag) of `batch`, in order: on one worker, or by `here` one
   * at a time where workers can't start or every one is signing or checking signatures (a
   * sealing queued behind those would hold its `putMany` up). Its keys are wiped once used.
   */
  async seal(batch: AeadBatch, here: SealOne): Promise<Uint8Array[]> {
    if (!this.#free()) return sealEach(batch, here);
    const { out, lengths } = await this.#aead('seal', batch);
    return cut(out, lengths!) as Uint8Array[];
  }

  /** Whether a worker is there and one is not signing or checking signatures. */
  #free(): boolean {
    return this.#start(1) && !this.#threads.every(busyWithSignatures);
  }

  /** `batch` opened or sealed on one worker, its buffers moved there. */
  #aead(kind: 'open' | 'seal', batch: AeadBatch): Promise<Answer> {
    const { count, keys, nonces, bytes, ends } = batch;
    return this.#post({ kind, count, keys, nonces, bytes, ends }, [
      keys.buffer,
      nonces.buffer,
      bytes.buffer,
      ends.buffer,
    ]);
  }

  /** Ends every worker; jobs under way fail. */
  async close(): Promise<void> {
    const threads = this.#threads;
    this.#threads = [];
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  /** Workers to share `n` items among, started; 0 when they are done here instead. */
  #shares(n: number): number {
    const shares = Math.min(this.size, Math.floor(n / MIN_SHARE));
    return shares >= 1 && this.#start(shares) ? shares : 0;
  }

  /** `items` in `shares` near-equal parts, each a job made by `request`, and their answers. */
  #split<T>(
    items: readonly T[],
    shares: number,
    request: (part: readonly T[]) => [Job, ArrayBuffer[]],
  ): Promise<Answer[]> {
    const per = Math.ceil(items.length / shares);
    const parts: Array<Promise<Answer>> = [];
    for (let at = 0; at < items.length; at += per) {
      const [body, transfer] = request(items.slice(at, at + per));
      parts.push(this.#post(body, transfer));
    }
    return Promise.all(parts);
  }

  /** Starts workers up to `n`; false when they can't start here. */
  #start(n: number): boolean {
    if (this.#unavailable) return false;
    try {
      while (this.#threads.length < n) this.#threads.push(this.#spawn());
    } catch {
      // No workers here (a runtime without eval workers, a sandbox): done in this thread.
      this.#unavailable = true;
      void this.close();
      return false;
    }
    return true;
  }

  #spawn(): Thread {
    const worker = new this.workers.Worker(WORKER_CODE, { eval: true });
    worker.unref();
    const thread: Thread = { worker, pending: new Map() };
    const fail = (cause: unknown) => {
      this.#threads = this.#threads.filter((t) => t !== thread);
      const error = new MincaError('unavailable', 'a crypto worker failed', { cause });
      for (const job of [...thread.pending.keys()]) this.#settle(thread, job)?.reject(error);
    };
    worker.on('message', (reply) => {
      const pending = this.#settle(thread, reply.job);
      if (!pending) return;
      if ('error' in reply)
        pending.reject(new MincaError('unavailable', `a crypto worker failed: ${reply.error}`));
      else
        pending.resolve({
          out: new Uint8Array(reply.out.buffer, reply.out.byteOffset, reply.out.length),
          ...(reply.lengths ? { lengths: reply.lengths } : {}),
        });
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the worker exited (${code})`)));
    return thread;
  }

  #post(body: Job, transfer: ArrayBuffer[]): Promise<Answer> {
    // A worker without work first; else the next in turn.
    const idle = this.#threads.find((t) => t.pending.size === 0);
    const thread = idle ?? this.#threads[this.#next++ % this.#threads.length]!;
    const job = this.#job++;
    return new Promise<Answer>((resolve, reject) => {
      // Held while it has a job: a process waiting on one must not exit under it.
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(job, { kind: body.kind, resolve, reject });
      thread.worker.postMessage({ ...body, job }, transfer);
    });
  }

  /** Takes job `job` off `thread`, letting the worker go once it has no job left. */
  #settle(thread: Thread, job: number): Pending | undefined {
    const pending = thread.pending.get(job);
    if (!pending) return undefined;
    thread.pending.delete(job);
    if (thread.pending.size === 0) thread.worker.unref();
    return pending;
  }
}
