// A real S3-compatible server (s3rver) on 127.0.0.1 for tests and benchmarks, in a child process
// on a fresh temporary directory. A child process because s3rver makes its continuation tokens
// with DES, which Node 20's OpenSSL 3 only has with --openssl-legacy-provider.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { BlobStore } from '@minca/core';
import { createS3BlobStore, type S3BlobStoreOptions } from '../s3-blob-store.js';

/** s3rver knows this one access key id; it checks the id, not the V4 signature. */
export const S3RVER_ACCESS_KEY_ID = 'S3RVER';
/**
 * s3rver does not verify V4 signatures, so any secret passes: this one is telling, so a test can
 * search what the store printed for it.
 */
export const S3RVER_SECRET_ACCESS_KEY = 'test-secret-k9Qz7Wv3Lm';
/** The bucket {@link startS3rver} makes unless told another. */
export const S3RVER_BUCKET = 'minca-test';

/** How long s3rver may take to start, and to stop before it is killed. */
const START_MS = 20_000;
const STOP_MS = 5_000;

export interface StartS3rverOptions {
  /** The bucket to make; {@link S3RVER_BUCKET} by default. */
  bucket?: string;
}

export interface RunningS3rver {
  /** `http://127.0.0.1:<port>`: the port is the one the system gave. */
  endpoint: string;
  bucket: string;
  /** The child process that runs s3rver. */
  pid: number;
  /**
   * A blob store in this server's bucket with its credentials; `options` add to them or replace
   * them (another endpoint, such as a proxy in front of this server, a prefix, a fetch).
   */
  store(options?: Partial<S3BlobStoreOptions>): BlobStore;
  /** Stops the server (killing its process if it does not end in 5 s) and removes its directory. */
  close(): Promise<void>;
}

// Runs in the child: start s3rver, print its port, stop when stdin closes (the parent is gone).
const CHILD = `
const S3rver = require(process.env.S3RVER_MODULE);
const server = new S3rver({
  address: '127.0.0.1', port: 0, silent: true,
  directory: process.env.S3RVER_DIRECTORY,
  configureBuckets: [{ name: process.env.S3RVER_BUCKET }],
});
server.run().then(({ port }) => process.stdout.write(JSON.stringify({ port }) + '\\n'));
process.stdin.resume();
process.stdin.on('end', () => server.close().then(() => process.exit(0)));
`;

/**
 * Starts s3rver on 127.0.0.1 (port 0) with one bucket. s3rver is an optional peer dependency of
 * `@minca/s3`: install it (3.7.1) where this runs.
 *
 * @example
 * const s3 = await startS3rver();
 * try {
 *   await s3.store({ prefix: 'demo' }).put('a', new Uint8Array([1]));
 * } finally {
 *   await s3.close();
 * }
 */
export async function startS3rver(options: StartS3rverOptions = {}): Promise<RunningS3rver> {
  const bucket = options.bucket ?? S3RVER_BUCKET;
  const directory = await mkdtemp(join(tmpdir(), 'minca-s3-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', CHILD], {
    env: {
      ...process.env,
      S3RVER_MODULE: createRequire(import.meta.url).resolve('s3rver'),
      S3RVER_DIRECTORY: directory,
      S3RVER_BUCKET: bucket,
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const timer = setTimeout(() => child.kill(), START_MS);
  const [line] = await Promise.race([once(lines, 'line'), once(child, 'exit')]);
  clearTimeout(timer);
  const port = typeof line === 'string' ? (JSON.parse(line) as { port?: unknown }).port : undefined;
  if (typeof port !== 'number' || child.pid === undefined) {
    await rm(directory, { recursive: true, force: true });
    throw new Error('s3rver did not start');
  }
  const pid = child.pid;
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    pid,
    store: (overrides = {}) =>
      createS3BlobStore({
        endpoint,
        bucket,
        accessKeyId: S3RVER_ACCESS_KEY_ID,
        secretAccessKey: S3RVER_SECRET_ACCESS_KEY,
        ...overrides,
      }),
    async close() {
      const exited = child.exitCode === null ? once(child, 'exit') : Promise.resolve();
      child.stdin.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
      await exited;
      clearTimeout(killer);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
