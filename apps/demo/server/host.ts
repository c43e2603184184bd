/**
 * The demo's local host is the CLI's `minca host` (apps/cli, built), run as a child process
 * with its SQLite data in a folder. It holds spaces without their key (spec 05 §7.3) for the
 * accounts it has a subscription for (spec 06): the demo adds one for each account of a
 * browser that asks (`subscribe`), as a local host for one's own browsers may.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DID = /^did:key:z[1-9A-HJ-NP-Za-km-z]{40,60}$/;

export interface HostOptions {
  /** The host's data folder (`host.sqlite`, `host.key`); made when missing. */
  dataDir: string;
  /** 0 (the default) takes a free port. */
  port?: number;
  hostname?: string;
}

export interface RunningHost {
  /** The host's DID, which owners let hold their spaces. */
  did: string;
  port: number;
  /** `ws://host:port` */
  url: string;
  dataDir: string;
  /** Lets the account `did` keep spaces on the host (once per DID while this runs). */
  subscribe(did: string): Promise<void>;
  close(): Promise<void>;
}

/** apps/cli/dist/main.js, found from here (server/ in source, dist/server/ when built). */
export function cliMain(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const main = join(dir, 'cli', 'dist', 'main.js');
    if (existsSync(main)) return main;
    dir = dirname(dir);
  }
  throw new Error('apps/cli is not built: run pnpm --filter @minca/cli build');
}

function cli(main: string, home: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [main, '--json', ...args],
      { env: { ...process.env, MINCA_HOME: home } },
      (error, stdout, stderr) =>
        error ? reject(new Error(stderr || error.message)) : resolve(stdout),
    );
  });
}

export async function startHost(options: HostOptions): Promise<RunningHost> {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const main = cliMain();
  // The CLI's own settings stay inside the demo's data folder.
  const home = join(options.dataDir, 'cli-home');
  const args = ['--json', 'host', '--data', options.dataDir, '--port', String(options.port ?? 0)];
  args.push('--bind', options.hostname ?? '127.0.0.1');
  const child: ChildProcess = spawn(process.execPath, [main, ...args], {
    env: { ...process.env, MINCA_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = await new Promise<{ url: string; did: string }>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (part: Buffer) => {
      out += part.toString('utf8');
      const line = out.split('\n').find((l) => l.trim().startsWith('{'));
      if (line && out.includes('\n')) {
        try {
          resolve(JSON.parse(line) as { url: string; did: string });
        } catch {
          // not the whole line yet
        }
      }
    });
    child.stderr?.on('data', (part: Buffer) => {
      err += part.toString('utf8');
    });
    child.once('exit', (code) => reject(new Error(`minca host exited (${code}): ${err.trim()}`)));
  });
  child.stderr?.on('data', (part: Buffer) => process.stderr.write(part));
  const port = Number(new URL(started.url).port);
  const subscribed = new Map<string, Promise<void>>();
  return {
    did: started.did,
    port,
    url: started.url,
    dataDir: options.dataDir,
    subscribe(did) {
      if (!DID.test(did)) return Promise.reject(new Error('not an account DID'));
      let done = subscribed.get(did);
      if (!done) {
        done = cli(main, home, [
          'host',
          'subscription',
          'add',
          did,
          '--data',
          options.dataDir,
        ]).then(() => undefined);
        done.catch(() => subscribed.delete(did));
        subscribed.set(did, done);
      }
      return done;
    },
    async close() {
      // A subscription still being added is a CLI process writing into the data folder: let it
      // finish first, or whoever removes the folder next races it (ENOTEMPTY).
      await Promise.allSettled(subscribed.values());
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // A host that doesn't stop within 5 s is killed: stopping the demo never hangs on it.
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}
