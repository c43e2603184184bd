// Starts a real S3-compatible server (s3rver) on 127.0.0.1 in a child process, on a fresh temp
// directory. A child process because s3rver makes its continuation tokens with DES, which
// Node 20's OpenSSL 3 only has with --openssl-legacy-provider; and a server apart from the
// client is closer to the real thing anyway.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** s3rver knows this one access key id; it checks the id, not the V4 signature. */
export const ACCESS_KEY_ID = 'S3RVER';
/** s3rver does not verify V4 signatures, so any secret passes; the tests use a telling one. */
export const SECRET_ACCESS_KEY = 'test-secret-k9Qz7Wv3Lm';
export const BUCKET = 'minca-test';

export interface RunningS3rver {
  endpoint: string;
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

/** A running s3rver with bucket {@link BUCKET}; `close` stops it and removes its directory. */
export async function startS3rver(): Promise<RunningS3rver> {
  const directory = await mkdtemp(join(tmpdir(), 'minca-s3-'));
  const child: ChildProcess = spawn(process.execPath, ['--openssl-legacy-provider', '-e', CHILD], {
    env: {
      ...process.env,
      S3RVER_MODULE: createRequire(import.meta.url).resolve('s3rver'),
      S3RVER_DIRECTORY: directory,
      S3RVER_BUCKET: BUCKET,
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const timer = setTimeout(() => child.kill(), 20_000);
  const [line] = (await Promise.race([once(lines, 'line'), once(child, 'exit')])) as [string];
  clearTimeout(timer);
  const port = (JSON.parse(String(line)) as { port?: number }).port;
  if (typeof port !== 'number') throw new Error('s3rver did not start');
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      const exited = once(child, 'exit');
      child.stdin!.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
