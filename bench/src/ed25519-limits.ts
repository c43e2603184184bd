// The raw Ed25519 limits of this machine, measured beside the figures they bound: how fast the
// platform signs one message after another (node:crypto, synchronous), and how fast it signs
// and verifies on all its cores (the fastest of WebCrypto's overlapped calls in one process and
// node:crypto in one worker thread per core).
import { generateKeyPairSync, sign } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Messages of about a small version's signed size. */
const MESSAGE_BYTES = 200;

const messages = (n: number) =>
  Array.from({ length: n }, (_, i) => {
    const m = new Uint8Array(MESSAGE_BYTES);
    new DataView(m.buffer).setUint32(0, i);
    return m;
  });

/** Signatures per second, one after another, through node:crypto's synchronous `sign`. */
export function signOneAtATime(n = 20_000): number {
  const { privateKey } = generateKeyPairSync('ed25519');
  const all = messages(n);
  const start = performance.now();
  for (const m of all) sign(null, m, privateKey);
  return n / ((performance.now() - start) / 1000);
}

/** Per second through WebCrypto, `n` calls in flight at once (its thread pool). */
async function webCryptoOverlapped(job: 'sign' | 'verify', n: number): Promise<number> {
  const { subtle } = globalThis.crypto;
  const keys = (await subtle.generateKey({ name: 'Ed25519' }, false, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const all = messages(n);
  const sigs = await Promise.all(all.map((m) => subtle.sign('Ed25519', keys.privateKey, m)));
  const start = performance.now();
  if (job === 'sign') await Promise.all(all.map((m) => subtle.sign('Ed25519', keys.privateKey, m)));
  else await Promise.all(all.map((m, i) => subtle.verify('Ed25519', keys.publicKey, sigs[i]!, m)));
  return n / ((performance.now() - start) / 1000);
}

// Each worker signs (or signs, then verifies) `n` messages with node:crypto and says how long.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { generateKeyPairSync, sign, verify } = require('node:crypto');
const { job, n, bytes } = workerData;
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const all = Array.from({ length: n }, (_, i) => { const m = Buffer.alloc(bytes); m.writeUInt32BE(i); return m; });
const sigs = job === 'verify' ? all.map((m) => sign(null, m, privateKey)) : [];
parentPort.once('message', () => {
  const start = performance.now();
  if (job === 'sign') for (const m of all) sign(null, m, privateKey);
  else for (let i = 0; i < n; i++) if (!verify(null, all[i], publicKey, sigs[i])) throw new Error('bad');
  parentPort.postMessage(performance.now() - start);
});
parentPort.postMessage('ready');
`;

/** Per second through node:crypto, one worker thread per core, started together. */
async function nodeCryptoWorkers(job: 'sign' | 'verify', n: number): Promise<number> {
  const cores = availableParallelism();
  const per = Math.ceil(n / cores);
  const workers = Array.from(
    { length: cores },
    () => new Worker(WORKER, { eval: true, workerData: { job, n: per, bytes: MESSAGE_BYTES } }),
  );
  try {
    await Promise.all(workers.map((w) => new Promise((ok) => w.once('message', ok))));
    const start = performance.now();
    await Promise.all(
      workers.map((w) => {
        const done = new Promise((ok, fail) => {
          w.once('message', ok);
          w.once('error', fail);
        });
        w.postMessage('go');
        return done;
      }),
    );
    return (per * cores) / ((performance.now() - start) / 1000);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** The fastest of the two ways to `job` on all cores, and which it was. */
export async function allCores(
  job: 'sign' | 'verify',
  n = 20_000,
): Promise<{ rate: number; how: string }> {
  const web = await webCryptoOverlapped(job, n);
  const workers = await nodeCryptoWorkers(job, n);
  return web >= workers
    ? { rate: web, how: 'WebCrypto, overlapped' }
    : { rate: workers, how: `node:crypto, ${availableParallelism()} worker threads` };
}
