/**
 * Ed25519 signing of many messages on a few worker threads, each signing its share with
 * `node:crypto`: how `nodeCrypto` signs a `putMany` on every core. Core imports no platform
 * API: the caller hands in `node:worker_threads`, and the workers' code is a string run as a
 * CommonJS worker. Where workers can't start, messages are signed here, one after another.
 */
import { MincaError } from './errors.js';

/** The part of `node:worker_threads` this uses. */
export interface WorkerThreadsModule {
  Worker: new (code: string, options: { eval: true }) => WorkerHandle;
}

/** The part of a `Worker` this uses. */
export interface WorkerHandle {
  postMessage(value: unknown, transfer?: ArrayBuffer[]): void;
  on(event: 'message', listener: (value: SignReply) => void): unknown;
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

interface SignRequest {
  job: number;
  jwk: Ed25519Jwk;
  /** Every message of the share, back to back, and where each ends. */
  bytes: Uint8Array;
  ends: Uint32Array;
}

type SignReply = { job: number; signatures: Uint8Array } | { job: number; error: string };

// The worker keeps the last key it made, since one key signs a whole `putMany`.
const WORKER_CODE = `
const { parentPort } = require('node:worker_threads');
const { createPrivateKey, sign } = require('node:crypto');
let lastD, lastKey;
parentPort.on('message', ({ job, jwk, bytes, ends }) => {
  try {
    if (jwk.d !== lastD) { lastKey = createPrivateKey({ key: jwk, format: 'jwk' }); lastD = jwk.d; }
    const out = new Uint8Array(64 * ends.length);
    let start = 0;
    for (let i = 0; i < ends.length; i++) {
      out.set(sign(null, bytes.subarray(start, ends[i]), lastKey), 64 * i);
      start = ends[i];
    }
    parentPort.postMessage({ job, signatures: out }, [out.buffer]);
  } catch (error) {
    parentPort.postMessage({ job, error: String((error && error.message) || error) });
  }
});
`;

/** Fewer messages than this per worker are signed here: a round trip costs a few signatures. */
export const MIN_SHARE = 16;

interface Pending {
  resolve(signatures: Uint8Array): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: WorkerHandle;
  pending: Map<number, Pending>;
}

/**
 * Up to `size` workers, started on first use. A worker without a job is unref'd, so an idle
 * pool never keeps the process alive; a worker that fails fails its jobs with
 * `unavailable` and is replaced on the next use.
 */
export class SignPool {
  #threads: Thread[] = [];
  #next = 0;
  #job = 0;
  /** Set when workers could not start here: everything is then signed in this thread. */
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
    const shares = Math.min(this.size, Math.floor(messages.length / MIN_SHARE));
    if (shares < 1 || !this.#start(shares)) return messages.map((m) => here(m));
    const per = Math.ceil(messages.length / shares);
    const parts: Promise<Uint8Array>[] = [];
    for (let at = 0; at < messages.length; at += per)
      parts.push(this.#post(jwk, messages.slice(at, at + per)));
    const out: Uint8Array[] = [];
    for (const signatures of await Promise.all(parts))
      for (let i = 0; i < signatures.length; i += 64) out.push(signatures.slice(i, i + 64));
    return out;
  }

  /** Ends every worker; jobs under way fail. */
  async close(): Promise<void> {
    const threads = this.#threads;
    this.#threads = [];
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  /** Starts workers up to `n`; false when they can't start here. */
  #start(n: number): boolean {
    if (this.#unavailable) return false;
    try {
      while (this.#threads.length < n) this.#threads.push(this.#spawn());
    } catch {
      // No workers here (a runtime without eval workers, a sandbox): signed in this thread.
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
      const error = new MincaError('unavailable', 'a signing worker failed', { cause });
      for (const job of [...thread.pending.keys()]) this.#settle(thread, job)?.reject(error);
    };
    worker.on('message', (reply) => {
      const pending = this.#settle(thread, reply.job);
      if (!pending) return;
      if ('error' in reply)
        pending.reject(
          new MincaError('unavailable', `a signing worker could not sign: ${reply.error}`),
        );
      else pending.resolve(new Uint8Array(reply.signatures));
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the worker exited (${code})`)));
    return thread;
  }

  #post(jwk: Ed25519Jwk, messages: readonly Uint8Array[]): Promise<Uint8Array> {
    const thread = this.#threads[this.#next++ % this.#threads.length]!;
    let length = 0;
    for (const m of messages) length += m.length;
    const bytes = new Uint8Array(length);
    const ends = new Uint32Array(messages.length);
    let at = 0;
    messages.forEach((m, i) => {
      bytes.set(m, at);
      ends[i] = at += m.length;
    });
    const job = this.#job++;
    const request: SignRequest = { job, jwk, bytes, ends };
    return new Promise<Uint8Array>((resolve, reject) => {
      // Held while it has a job: a process waiting on one must not exit under it.
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(job, { resolve, reject });
      thread.worker.postMessage(request, [bytes.buffer, ends.buffer]);
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
