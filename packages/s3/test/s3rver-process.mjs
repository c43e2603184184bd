// Starts a real S3-compatible server (s3rver) on 127.0.0.1 in a child process, on a fresh temp
// directory, with one bucket. A child process because s3rver makes its continuation tokens with
// DES, which Node 20's OpenSSL 3 only has with --openssl-legacy-provider. Plain JavaScript, so
// both the tests and the benchmark (built separately) run this one launcher.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

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

/** A running s3rver holding `bucket`; `close` stops it and removes its directory. */
export async function startS3rverProcess(bucket) {
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
  const timer = setTimeout(() => child.kill(), 20_000);
  const [line] = await Promise.race([once(lines, 'line'), once(child, 'exit')]);
  clearTimeout(timer);
  const port = JSON.parse(String(line)).port;
  if (typeof port !== 'number') throw new Error('s3rver did not start');
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      const exited = once(child, 'exit');
      child.stdin.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
