import * as nodeCryptoModule from 'node:crypto';
import * as workerThreads from 'node:worker_threads';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { compareBytes } from '../src/bytes.js';
import { verifyDetached } from '../src/intake.js';
import { SigningKey } from '../src/keys.js';
import { nodeCrypto } from '../src/node-crypto.js';
import { randomKey } from '../src/seal.js';
import { MIN_SHARE, type WorkerHandle, type WorkerThreadsModule } from '../src/sign-pool.js';
import { createVersions, openBody } from '../src/version.js';
import { errorCode } from './error-code.js';
import { connect, converged, nodeFixture, sharedSpace } from './sync-helpers.js';
import { drafts } from './version-fixture.js';

const { make } = nodeFixture();
const draft = drafts({ space: 'a'.repeat(26) });
const messages = (n: number) =>
  Array.from({ length: n }, (_, i) => nodeCryptoModule.randomBytes(100 + (i % 50)));

type Listener = (value: never) => void;

/**
 * A stand-in for `node:worker_threads` whose workers sign as told (`behave`), recording how
 * they were ref'd, so a pool's handling of failures and of the process can be checked.
 */
function fakeWorkers(behave: 'sign' | 'refuse' | 'crash' | 'absent') {
  const started: FakeWorker[] = [];
  class FakeWorker implements WorkerHandle {
    readonly listeners = new Map<string, Listener[]>();
    /** Whether the worker holds the process (a Worker is ref'd from its start). */
    held = true;
    constructor() {
      if (behave === 'absent') throw new Error('no workers here');
      started.push(this);
    }
    on(event: string, listener: Listener): this {
      this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
      return this;
    }
    #emit(event: string, value: unknown) {
      for (const l of this.listeners.get(event) ?? []) l(value as never);
    }
    postMessage(value: unknown): void {
      const { job, jwk, bytes, ends } = value as {
        job: number;
        jwk: { d: string };
        bytes: Uint8Array;
        ends: Uint32Array;
      };
      setTimeout(() => {
        if (behave === 'crash') return this.#emit('error', new Error('worker died'));
        if (behave === 'refuse') return this.#emit('message', { job, error: 'bad key' });
        const secret = Buffer.from(jwk.d, 'base64url');
        const out = new Uint8Array(64 * ends.length);
        let start = 0;
        ends.forEach((end, i) => {
          out.set(ed25519.sign(bytes.subarray(start, end), secret), 64 * i);
          start = end;
        });
        this.#emit('message', { job, signatures: out });
      }, 1);
    }
    ref(): void {
      this.held = true;
    }
    unref(): void {
      this.held = false;
    }
    async terminate(): Promise<number> {
      return 0;
    }
  }
  return { module: { Worker: FakeWorker } as unknown as WorkerThreadsModule, started };
}

const code = errorCode;

describe('signing on worker threads (nodeCrypto with workers)', () => {
  it('gives the signatures RFC 8032 gives, in order, on real worker threads', async () => {
    const platform = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 2 });
    const key = SigningKey.generate();
    const signer = key.signingWith(platform);
    const all = messages(4 * MIN_SHARE + 3);
    const signatures = await signer.signMany(all);
    const secret = key.exportSecret();
    expect(signatures).toHaveLength(all.length);
    all.forEach((m, i) => {
      expect(compareBytes(signatures[i]!, ed25519.sign(m, secret))).toBe(0);
    });
  });

  it('makes versions that verify and open one by one, alone or under batch signatures', async () => {
    const platform = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 2 });
    const key = SigningKey.generate().signingWith(platform);
    const spaceKey = randomKey();
    for (const perSignature of [1, 7]) {
      const many = Array.from({ length: 600 }, (_, i) => draft({ body: { i } }));
      const versions = await createVersions(many, spaceKey, key, { perSignature });
      const checked = await verifyDetached(versions.map((v) => v.bytes));
      expect(checked.map((v) => v.id)).toEqual(versions.map((v) => v.id));
      expect(versions.map((v) => openBody(v, spaceKey))).toEqual(many.map((d) => d.body));
    }
  });

  it('a worker failing or refusing fails the putMany with `unavailable`, storing nothing', async () => {
    for (const behave of ['crash', 'refuse'] as const) {
      const { module } = fakeWorkers(behave);
      const node = await make({ crypto: nodeCrypto(nodeCryptoModule, { workers: module }) });
      const space = (await node.spaces.create()).id;
      const items = Array.from({ length: 200 }, (_, i) => ({ body: { i } }));
      expect(await code(() => node.records.putMany(space, 'app.post', items))).toBe('unavailable');
      expect(await node.records.list(space, 'app.post')).toEqual([]);
      // A put alone is signed in this thread, and still goes in.
      await node.records.put(space, 'app.post', { after: true });
      expect(await node.records.list(space, 'app.post')).toHaveLength(1);
    }
  });

  it('signs in this thread where workers cannot start, and for a few messages', async () => {
    const absent = fakeWorkers('absent');
    const key = SigningKey.generate();
    const signer = key.signingWith(nodeCrypto(nodeCryptoModule, { workers: absent.module }));
    const all = messages(3 * MIN_SHARE);
    const signatures = await signer.signMany(all);
    all.forEach((m, i) => {
      expect(compareBytes(signatures[i]!, ed25519.sign(m, key.exportSecret()))).toBe(0);
    });
    const fake = fakeWorkers('sign');
    const few = key.signingWith(nodeCrypto(nodeCryptoModule, { workers: fake.module }));
    await few.signMany(messages(MIN_SHARE - 1));
    expect(fake.started).toHaveLength(0);
  });

  it('holds the process only while a worker has a job', async () => {
    const { module, started } = fakeWorkers('sign');
    const key = SigningKey.generate();
    const signer = key.signingWith(nodeCrypto(nodeCryptoModule, { workers: module, threads: 3 }));
    const signing = signer.signMany(messages(3 * MIN_SHARE));
    expect(started).toHaveLength(3);
    expect(started.every((w) => w.held)).toBe(true);
    const signatures = await signing;
    expect(signatures).toHaveLength(3 * MIN_SHARE);
    expect(started.some((w) => w.held)).toBe(false);
    // The same workers sign the next batch.
    await signer.signMany(messages(2 * MIN_SHARE));
    expect(started).toHaveLength(3);
    expect(started.some((w) => w.held)).toBe(false);
  });

  it('writes with putMany records another node reads and checks', async () => {
    const a = await make({
      crypto: nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 2 }),
    });
    const b = await make();
    const space = await sharedSpace(a, [b]);
    const items = Array.from({ length: 300 }, (_, i) => ({ body: { i } }));
    const written = await a.records.putMany(space, 'app.post', items);
    expect(written.map((r) => r.body)).toEqual(items.map((item) => item.body));
    connect(a, b);
    await converged([a, b], space);
    const seen = await b.records.list(space, 'app.post');
    expect(seen.map((r) => (r.body as { i: number }).i).sort((x, y) => x - y)).toEqual(
      items.map((_, i) => i),
    );
  });
});
