/** Runs the built `minca` as a child process, in a home of its own. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const MINCA = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A temporary folder standing for one person's HOME. */
export async function tempHome(name: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `minca-${name}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Temporary HOMEs for one test file, one per name, made now and removed after its tests once
 * `stop` has stopped what runs in them.
 */
export async function homesForFile<const N extends readonly string[]>(
  names: N,
  stop?: () => Promise<unknown> | undefined,
): Promise<{ -readonly [K in keyof N]: string }> {
  const homes: Array<{ dir: string; remove(): Promise<void> }> = [];
  for (const name of names) homes.push(await tempHome(name));
  afterAll(async () => {
    await stop?.();
    for (const home of homes) await home.remove();
  });
  return homes.map((home) => home.dir) as { -readonly [K in keyof N]: string };
}

/** The environment of a process for HOME `home`, without any MINCA_* of the test runner. */
export function envFor(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MINCA_')) env[k] = v;
  return { ...env, HOME: home, ...extra };
}

/** Runs `minca args…` to its end (bounded by `timeoutMs`). */
export function minca(
  home: string,
  args: string[],
  options: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MINCA, ...args], {
      env: envFor(home, options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs `minca args… --json` and parses what it printed; throws with stderr on failure. */
export async function mincaJson<T = unknown>(
  home: string,
  args: string[],
  options: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<T> {
  const ran = await minca(home, ['--json', ...args], options);
  if (ran.code !== 0) throw new Error(`minca ${args.join(' ')} exited ${ran.code}: ${ran.stderr}`);
  return JSON.parse(ran.stdout) as T;
}

/** A long-running `minca` (host, carrier, daemon): started, its first stdout line read. */
export interface Running {
  child: ChildProcess;
  first: Record<string, unknown>;
  stderr(): string;
  stop(): Promise<number | null>;
}

export function startMinca(
  home: string,
  args: string[],
  options: {
    env?: Record<string, string>;
    timeoutMs?: number;
    /** A command that runs `node minca …` for us, such as `['prlimit', '--nofile=1024']`. */
    wrap?: string[];
  } = {},
): Promise<Running> {
  return new Promise((resolve, reject) => {
    const command = [...(options.wrap ?? []), process.execPath, MINCA, '--json', ...args];
    const child = spawn(command[0]!, command.slice(1), {
      env: envFor(home, options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`minca ${args.join(' ')} did not start: ${stderr}`));
    }, options.timeoutMs ?? 30_000);
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      stdout += d;
      const line = stdout.indexOf('\n');
      if (line >= 0 && stdout.length - d.length <= line) {
        clearTimeout(timer);
        resolve({
          child,
          first: JSON.parse(stdout.slice(0, line)),
          stderr: () => stderr,
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
            const code = await exited;
            clearTimeout(kill);
            return code;
          },
        });
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`minca ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

/** Polls `check` every 50 ms until it holds; throws naming `what` after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 10_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
