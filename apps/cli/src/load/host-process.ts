/**
 * What the host load and soak runs share: the built `minca` run as a command or started as a
 * host process on 127.0.0.1 (its pid, peak memory and CPU time read from /proc), a node's
 * WebSocket connection to it, and polling with a bound.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createWebSocketTransport, type MincaNode, type WebSocketLike } from '@minca/core';
import { WebSocket } from 'ws';

export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
/** Clock ticks per second in /proc/<pid>/stat (CLK_TCK), 100 on Linux. */
const TICKS_PER_SECOND = 100;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `minca --json args…` to its end; resolves with its stdout. */
export function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, '--json', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`minca ${args[0]}: ${err}`)),
    );
  });
}

export interface HostProcess {
  url: string;
  /** The DID it proves: its own key's, or its fleet's. */
  did: string;
  /** A fleet host's own key's DID. */
  host?: string;
  pid: number;
  /** What the host printed on stderr so far. */
  stderr(): string;
  /** VmHWM: the most resident memory the host had, KiB. */
  peakRssKiB(): Promise<number>;
  /** VmRSS: its resident memory now, KiB. */
  rssKiB(): Promise<number>;
  /** CPU seconds it used so far, user and system. */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
  /** Ends it at once with SIGKILL, as a crash would: nothing is pushed or closed. */
  kill(): Promise<void>;
}

/** Starts `minca host` over `data`; resolves once it printed its URL and DID. */
export async function startHost(
  home: string,
  data: string,
  options: { env?: NodeJS.ProcessEnv; port?: number; startMs?: number } = {},
): Promise<HostProcess> {
  const env = { ...process.env, ...options.env, HOME: home };
  const port = String(options.port ?? 0);
  const args = [MAIN, '--json', 'host', '--port', port, '--data', data];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const first = await new Promise<{ url: string; did: string; host?: string }>(
    (resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`the host did not start: ${err}`)),
        options.startMs ?? 30_000,
      );
      child.stdout.on('data', (d) => {
        out += d;
        const end = out.indexOf('\n');
        if (end >= 0) {
          clearTimeout(timer);
          resolve(JSON.parse(out.slice(0, end)));
        }
      });
      child.on('close', (code) => reject(new Error(`the host exited ${code}: ${err}`)));
    },
  );
  const exited = new Promise<void>((r) => child.on('close', () => r()));
  const status = async (field: string) => {
    const text = await readFile(`/proc/${child.pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? Number.NaN);
  };
  return {
    ...first,
    pid: child.pid!,
    stderr: () => err,
    peakRssKiB: () => status('VmHWM'),
    rssKiB: () => status('VmRSS'),
    async cpuSeconds() {
      const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(kill);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Connects `node` to the host at `url` over a WebSocket of its own. */
export function connect(node: MincaNode, url: string): WebSocket {
  const socket = new WebSocket(url, { maxPayload: 4 * 1024 * 1024 });
  socket.on('error', () => {});
  node.connect(createWebSocketTransport(socket as unknown as WebSocketLike));
  return socket;
}

/** Waits until `check` holds, polling, up to `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
