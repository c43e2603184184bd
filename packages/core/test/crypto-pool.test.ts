import * as nodeCryptoModule from 'node:crypto';
import * as workerThreads from 'node:worker_threads';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import type { BodyValue } from '../src/body.js';
import { compareBytes, packParts } from '../src/bytes.js';
import {
  MIN_SHARE,
  sealEach,
  type WorkerHandle,
  type WorkerThreadsModule,
} from '../src/crypto-pool.js';
import { bodyOf } from '../src/envelope.js';
import { MincaError } from '../src/errors.js';
import { verifyDetached } from '../src/intake.js';
import { type AeadBatch, type PlatformAead, type PlatformCrypto, SigningKey } from '../src/keys.js';
import { nodeCrypto } from '../src/node-crypto.js';
import { openSalted, randomKey } from '../src/seal.js';
import { createVersions, openBody, openStoredMany } from '../src/version.js';
import { bodyAad, openStored } from '../src/version-open.js';
import { errorCode } from './error-code.js';
import { connect, converged, nodeFixture, sharedSpace } from './sync-helpers.js';
import { drafts } from './version-fixture.js';

const { make } = nodeFixture();
const draft = drafts({ space: 'a'.repeat(26) });
const messages = (n: number) =>
  Array.from({ length: n }, (_, i) => nodeCryptoModule.randomBytes(100 + (i % 50)));

type Listener = (value: never) => void;

/**
 * A stand-in for `node:worker_threads` whose workers sign (and, when signing, verify) as told
 * (`behave`), recording how they were ref'd and each job's kind, so a pool's handling of
 * failures and of the process can be checked.
 */
function fakeWorkers(behave: 'sign' | 'refuse' | 'crash' | 'absent') {
  const started: FakeWorker[] = [];
  /** The kind of each job posted. */
  const jobs: string[] = [];
  /** The messages of each job posted. */
  const sizes: number[] = [];
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
      const { kind } = value as { kind: string };
      jobs.push(kind);
      sizes.push(ends.length);
      setTimeout(() => {
        if (kind === 'verify' && behave === 'sign') {
          // Checked as RFC 8032 strictly does, by noble.
          const { keys, signatures } = value as { keys: Uint8Array; signatures: Uint8Array };
          let start = 0;
          const out = new Uint8Array(ends.length);
          ends.forEach((end, i) => {
            const [k, sig] = [keys.subarray(32 * i, 32 * i + 32), signatures.subarray(64 * i)];
            out[i] = ed25519.verify(sig.subarray(0, 64), bytes.subarray(start, end), k) ? 1 : 0;
            start = end;
          });
          return this.#emit('message', { job, out });
        }
        if (kind !== 'sign')
          return this.#emit('message', { job, error: 'this stand-in only signs' });
        if (behave === 'crash') return this.#emit('error', new Error('worker died'));
        if (behave === 'refuse') return this.#emit('message', { job, error: 'bad key' });
        const secret = Buffer.from(jwk.d, 'base64url');
        const out = new Uint8Array(64 * ends.length);
        let start = 0;
        ends.forEach((end, i) => {
          out.set(ed25519.sign(bytes.subarray(start, end), secret), 64 * i);
          start = end;
        });
        this.#emit('message', { job, out });
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
  return { module: { Worker: FakeWorker } as unknown as WorkerThreadsModule, started, jobs, sizes };
}

const code = errorCode;

/** node:crypto's platform, its ChaCha20-Poly1305 with `change(it)` over it. */
function withAead(change: (aead: PlatformAead) => Partial<PlatformAead>): PlatformCrypto {
  const platform = nodeCrypto(nodeCryptoModule);
  const aead = platform.chacha20poly1305!;
  return { ...platform, chacha20poly1305: { ...aead, ...change(aead) } };
}

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

describe('opening on worker threads (nodeCrypto with workers)', () => {
  /**
   * `platform` with its `openMany` and `openSaltedMany` counted, and made to fail once
   * `failing` is set.
   */
  function counted(platform: PlatformCrypto) {
    const aead = platform.chacha20poly1305!;
    const state = { batches: 0, failing: false };
    const wrapped: PlatformCrypto = {
      ...platform,
      chacha20poly1305: {
        ...aead,
        async openMany(batch) {
          if (state.failing) throw new Error('the workers are gone');
          state.batches++;
          return aead.openMany!(batch);
        },
        async openSaltedMany(batch) {
          if (state.failing) throw new Error('the workers are gone');
          state.batches++;
          return aead.openSaltedMany!(batch);
        },
      },
    };
    return { platform: wrapped, state };
  }

  it("opens bodies under each of a space's keys, a tombstone as null, what was changed as nothing", async () => {
    const { platform, state } = counted(
      nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 2 }),
    );
    await make({ crypto: platform }); // Installs its primitives, checked.
    const [older, newer] = [randomKey(), randomKey()];
    const key = SigningKey.generate();
    const bodies = Array.from({ length: 40 }, (_, i) => draft({ body: { i } }));
    const underOlder = await createVersions(bodies.slice(0, 15), older, key);
    const underNewer = await createVersions(bodies.slice(15), newer, key);
    const [tombstone] = await createVersions([draft({ body: null })], newer, key);
    const changed = underNewer[0]!.bytes.slice();
    bodyOf(changed).body![12]! ^= 1; // A view into `changed`.
    const list = [
      ...underOlder.map((v) => v.bytes),
      tombstone!.bytes,
      changed,
      ...underNewer.slice(1).map((v) => v.bytes),
    ];
    state.batches = 0;
    const opened = await openStoredMany(list, [older, newer]);
    expect(state.batches).toBeGreaterThan(0);
    expect(opened).toEqual([
      ...bodies.slice(0, 15).map((d) => d.body),
      null,
      undefined,
      ...bodies.slice(16).map((d) => d.body),
    ]);
  });

  it('lists on worker threads what it lists here, and here when the workers fail', async () => {
    const { platform, state } = counted(
      nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 1 }),
    );
    const node = await make({ crypto: platform });
    const space = (await node.spaces.create()).id;
    const items = Array.from({ length: 1200 }, (_, i) => ({ body: { i } }));
    await node.records.putMany(space, 'app.post', items);
    const byNumber = (records: Array<{ body: unknown }>) =>
      records.map((r) => (r.body as { i: number }).i).sort((x, y) => x - y);
    state.batches = 0;
    const listed = await node.records.list(space, 'app.post');
    expect(state.batches).toBeGreaterThan(1);
    expect(byNumber(listed)).toEqual(items.map((_, i) => i));
    state.failing = true;
    const again = await node.records.list(space, 'app.post');
    expect(again).toEqual(listed);
    expect(await node.records.list(space, 'app.post', { limit: 700 })).toEqual(
      listed.slice(0, 700),
    );
  });

  it('opens here, not queued behind them, while every worker has work', async () => {
    const fake = fakeWorkers('sign');
    const platform = nodeCrypto(nodeCryptoModule, { workers: fake.module, threads: 1 });
    const n = 20;
    const batch: AeadBatch = {
      count: n,
      keys: new Uint8Array(32 * n),
      nonces: new Uint8Array(12 * n),
      bytes: new Uint8Array(n * (8 + 16 + 16)),
      ends: new Uint32Array(2 * n),
    };
    const aead = platform.chacha20poly1305!;
    let at = 0;
    for (let i = 0; i < n; i++) {
      const [key, nonce, aad] = [randomKey(), nodeCryptoModule.randomBytes(12), messages(1)[0]!];
      const sealed = aead.seal(key, nonce, new Uint8Array(16).fill(i), aad.subarray(0, 8));
      batch.keys.set(key, 32 * i);
      batch.nonces.set(nonce, 12 * i);
      batch.bytes.set(aad.subarray(0, 8), at);
      batch.ends[2 * i] = at += 8;
      batch.bytes.set(sealed, at);
      batch.ends[2 * i + 1] = at += sealed.length;
    }
    const signing = SigningKey.generate().signingWith(platform).signMany(messages(MIN_SHARE));
    const opened = await aead.openMany!({ ...batch, keys: batch.keys.slice() });
    await signing;
    expect(fake.jobs).toEqual(['sign']);
    expect(opened.map((p) => p?.[0])).toEqual(Array.from({ length: n }, (_, i) => i));
    // With the worker free, the batch goes to it (this stand-in only signs, so it fails there).
    await aead.openMany!(batch).catch(() => undefined);
    expect(fake.jobs).toEqual(['sign', 'open']);
  });

  it('refuses at start a platform whose openMany opens what it must not', async () => {
    // Every one "opens", changed tag or not.
    const lying = withAead(() => ({
      openMany: async (batch) => Array.from({ length: batch.count }, () => new Uint8Array(1)),
    }));
    expect(await code(() => make({ crypto: lying }))).toBe('invalid_input');
  });

  it('refuses at start a platform whose openSaltedMany opens what it must not', async () => {
    const platform = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 1 });
    const aead = platform.chacha20poly1305!;
    // Right but for one changed salt, which it opens as if the salt were not part of the nonce.
    const lying = withAead(() => ({
      openSaltedMany: async (batch) => {
        // The platform takes a batch's buffers: the first opening gets copies.
        const { key, salts: sent, bytes, ends } = batch;
        const copy = {
          key: key.slice(),
          salts: sent.slice(),
          bytes: bytes.slice(),
          ends: ends.slice(),
        };
        const opened = await aead.openSaltedMany!({ ...batch, ...copy });
        const salts = batch.salts.slice();
        for (let i = 3; i < batch.count; i += 7) salts[8 * i]! ^= 1;
        const unchanged = await aead.openSaltedMany!({ ...batch, salts });
        return opened.map((o, i) => o ?? (i % 7 === 3 ? unchanged[i] : undefined));
      },
    }));
    expect(await code(() => make({ crypto: lying }))).toBe('invalid_input');
  });

  it('opens salted seals here, not queued behind them, while every worker has work', async () => {
    const fake = fakeWorkers('sign');
    const platform = nodeCrypto(nodeCryptoModule, { workers: fake.module, threads: 1 });
    const key = randomKey();
    const bodies = Array.from({ length: 20 }, (_, i) => draft({ body: { i } }));
    const versions = await createVersions(bodies, key, SigningKey.generate());
    const parts: Uint8Array[] = [];
    const salts = new Uint8Array(8 * versions.length);
    const expected = versions.map((v, i) => {
      const { headerEnd, body } = bodyOf(v.bytes);
      const aad = bodyAad(v.bytes.subarray(0, headerEnd)).slice();
      salts.set(body!.subarray(0, 8), 8 * i);
      parts.push(aad, body!.subarray(8));
      return openSalted(key, body!, aad);
    });
    const { bytes, ends } = packParts(parts);
    const batch = { count: versions.length, key: key.slice(), salts, bytes, ends };
    const aead = platform.chacha20poly1305!;
    const signing = SigningKey.generate().signingWith(platform).signMany(messages(MIN_SHARE));
    const opened = await aead.openSaltedMany!(batch);
    await signing;
    expect(fake.jobs).toEqual(['sign']);
    expect(opened).toEqual(expected);
    // Its key is wiped, as on a worker.
    expect(batch.key.every((b) => b === 0)).toBe(true);
  });

  it('opens salted seals on a worker as core opens them one by one', async () => {
    const platform = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 1 });
    await make({ crypto: platform }); // Installs its primitives, checked.
    const key = randomKey();
    const written = Array.from({ length: 300 }, (_, i) =>
      draft({ body: { i, pad: 'x'.repeat(i) } }),
    );
    const versions = await createVersions(written, key, SigningKey.generate());
    const [opened, here] = await Promise.all([
      openStoredMany(
        versions.map((v) => v.bytes),
        [key],
      ),
      versions.map((v) => openStored(v.bytes, [key])),
    ]);
    expect(opened).toEqual(here);
    expect(opened).toEqual(written.map((d) => d.body));
  });
});

describe('sealing on worker threads (nodeCrypto with workers)', () => {
  /** `n` sealings' parts, and their batch: each one's associated data, then its plaintext. */
  function sealings(n: number) {
    const parts = Array.from({ length: n }, (_, i) => ({
      key: randomKey(),
      nonce: new Uint8Array(nodeCryptoModule.randomBytes(12)),
      aad: new Uint8Array(nodeCryptoModule.randomBytes(i % 40)),
      plain: new Uint8Array(nodeCryptoModule.randomBytes(1 + ((37 * i) % 700))),
    }));
    const keys = new Uint8Array(32 * n);
    const nonces = new Uint8Array(12 * n);
    parts.forEach((p, i) => {
      keys.set(p.key, 32 * i);
      nonces.set(p.nonce, 12 * i);
    });
    const { bytes, ends } = packParts(parts.flatMap((p) => [p.aad, p.plain]));
    const batch: AeadBatch = { count: n, keys, nonces, bytes, ends };
    return { parts, batch };
  }

  it('seals on a worker what sealing one by one gives, taking the keys', async () => {
    const aead = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 1 })
      .chacha20poly1305!;
    const { parts, batch } = sealings(50);
    const sealed = await aead.sealMany!(batch);
    expect(sealed).toEqual(parts.map((p) => aead.seal(p.key, p.nonce, p.plain, p.aad)));
    // Its buffers moved to the worker: nothing of the keys is left here.
    expect(batch.keys.length).toBe(0);
  });

  it('seals here, keys wiped, while every worker signs', async () => {
    const fake = fakeWorkers('sign');
    const platform = nodeCrypto(nodeCryptoModule, { workers: fake.module, threads: 1 });
    const aead = platform.chacha20poly1305!;
    const { parts, batch } = sealings(20);
    const signing = SigningKey.generate().signingWith(platform).signMany(messages(MIN_SHARE));
    const sealed = await aead.sealMany!(batch);
    await signing;
    expect(fake.jobs).toEqual(['sign']);
    expect(sealed).toEqual(parts.map((p) => aead.seal(p.key, p.nonce, p.plain, p.aad)));
    expect(batch.keys.every((b) => b === 0)).toBe(true);
  });

  it('refuses at start a platform whose sealMany seals other bytes', async () => {
    // Each sealed under the first key of the batch, whatever its own.
    const lying = withAead((aead) => ({
      sealMany: async (batch) =>
        sealEach({ ...batch, keys: batch.keys.map((_, i) => batch.keys[i % 32]!) }, aead.seal),
    }));
    expect(await code(() => make({ crypto: lying }))).toBe('invalid_input');
  });

  it('seals the bodies of a batch-signed putMany there, and fails it whole when they fail', async () => {
    const real = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 1 });
    const aead = real.chacha20poly1305!;
    const state = { batches: 0, failing: false };
    const platform: PlatformCrypto = {
      ...real,
      chacha20poly1305: {
        ...aead,
        async sealMany(batch) {
          if (state.failing) throw new MincaError('unavailable', 'the workers are gone');
          state.batches++;
          return aead.sealMany!(batch);
        },
      },
    };
    const a = await make({ crypto: platform });
    const b = await make();
    const space = await sharedSpace(a, [b]);
    const items = Array.from({ length: 600 }, (_, i) => ({ body: { i } }));
    state.batches = 0;
    await a.records.putMany(space, 'app.post', items, { perSignature: 64 });
    expect(state.batches).toBeGreaterThan(0);
    connect(a, b);
    await converged([a, b], space);
    const seen = await b.records.list(space, 'app.post');
    expect(seen.map((r) => (r.body as { i: number }).i).sort((x, y) => x - y)).toEqual(
      items.map((_, i) => i),
    );
    state.failing = true;
    const more = items.map(({ body }) => ({ body: { ...body, again: true } }));
    expect(await code(() => a.records.putMany(space, 'app.post', more, { perSignature: 64 }))).toBe(
      'unavailable',
    );
    expect(await a.records.list(space, 'app.post')).toHaveLength(items.length);
  });

  it('refuses a batch-signed putMany with one body it cannot take, storing nothing', async () => {
    const node = await make({
      crypto: nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 1 }),
    });
    const space = (await node.spaces.create()).id;
    const items = Array.from({ length: 1200 }, (_, i) => ({ body: { i } as BodyValue }));
    // In the second chunk of 512: the first chunk's bodies are sealing on the worker by then.
    items[700] = { body: { big: 'x'.repeat(300_000) } };
    expect(
      await code(() => node.records.putMany(space, 'app.post', items, { perSignature: 64 })),
    ).toBe('too_large');
    expect(await node.records.list(space, 'app.post')).toEqual([]);
  });
});

describe('checking signatures on worker threads (nodeCrypto with workers)', () => {
  const signed = async (n: number) =>
    createVersions(
      Array.from({ length: n }, (_, i) => draft({ body: { i } })),
      randomKey(),
      SigningKey.generate(),
    );
  /** The versions' bytes, the one at `at` with a byte of its signature (its last field) changed. */
  const withBadSignature = (versions: Array<{ bytes: Uint8Array }>, at: number) =>
    versions.map((v, i) => {
      const bytes = v.bytes.slice();
      if (i === at) bytes[bytes.length - 5]! ^= 1;
      return bytes;
    });

  it('takes the versions of a message on real worker threads, and refuses one changed', async () => {
    await make({
      crypto: nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 2 }),
    });
    const versions = await signed(60);
    const taken = await verifyDetached(versions.map((v) => v.bytes));
    expect(taken.map((v) => v.id)).toEqual(versions.map((v) => v.id));
    expect(await code(() => verifyDetached(withBadSignature(versions, 37)))).toBe(
      'invalid_version',
    );
  });

  it('sends the checks asked for together to the workers, and checks here when they fail', async () => {
    const fake = fakeWorkers('sign');
    await make({ crypto: nodeCrypto(nodeCryptoModule, { workers: fake.module, threads: 2 }) });
    const versions = await signed(40);
    fake.jobs.length = 0;
    await verifyDetached(versions.map((v) => v.bytes));
    expect(fake.jobs).toEqual(['verify', 'verify']);
    expect(await code(() => verifyDetached(withBadSignature(versions, 3)))).toBe('invalid_version');
    // A share beside the workers' is checked on this process's own threads, and counts as much.
    fake.sizes.length = 0;
    await verifyDetached(versions.map((v) => v.bytes));
    expect(fake.sizes).toEqual([14, 13]);
    expect(await code(() => verifyDetached(withBadSignature(versions, 37)))).toBe(
      'invalid_version',
    );
    // Workers that fail every job: the same answers, from this thread.
    const failing = fakeWorkers('refuse');
    await make({ crypto: nodeCrypto(nodeCryptoModule, { workers: failing.module }) });
    failing.jobs.length = 0;
    await verifyDetached(versions.map((v) => v.bytes));
    expect(failing.jobs).toContain('verify');
    expect(await code(() => verifyDetached(withBadSignature(versions, 21)))).toBe(
      'invalid_version',
    );
  });
});
