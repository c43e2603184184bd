/**
 * `npm run demo` stops cleanly: scripts/demo.mjs runs the server and the host in a process
 * group of their own, and ends the group on SIGTERM (what npm passes on, and Ctrl-C's SIGINT
 * alike) and when the shell npm ran it in is killed outright. Real processes, ports on
 * 127.0.0.1 chosen by the system; every process found is checked gone by its id.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const APP = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(APP, '..', '..');
const linux = process.platform === 'linux';
const data = mkdtempSync(join(tmpdir(), 'minca-demo-stop-'));

/** Ids of the processes whose command line names `needle`. */
function processesNaming(needle: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(needle)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(ok: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (ok()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return ok();
}

/** Starts the demo as npm does (through `sh -c`); resolves once it serves, with the shell. */
async function startDemo(dir: string) {
  const command = `node scripts/demo.mjs --no-install --no-build --port 0 --host-port 0 --companion-port 0 --data ${dir}`;
  const shell = spawn('sh', ['-c', command], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo did not start: ${out}`)), 150_000);
    const take = (part: Buffer) => {
      out += part.toString('utf8');
      if (out.includes('minca demo: http')) {
        clearTimeout(timer);
        resolve();
      }
    };
    shell.stdout.on('data', take);
    shell.stderr.on('data', take);
  });
  // The shell, the launcher, the server and the host: each names the data folder.
  const pids = processesNaming(dir);
  return { shell, pids, output: () => out };
}

describe.skipIf(!linux)('stopping the demo', () => {
  beforeAll(() => {
    execFileSync('pnpm', ['exec', 'tsc', '-p', 'tsconfig.server.json'], { cwd: APP });
  }, 60_000);
  afterAll(() => {
    for (const pid of processesNaming(data)) process.kill(pid, 'SIGKILL');
    rmSync(data, { recursive: true, force: true });
  });

  it('SIGTERM to the launcher stops the server and the host', async () => {
    const dir = join(data, 'term');
    const { pids } = await startDemo(dir);
    expect(pids.length).toBeGreaterThanOrEqual(3); // the launcher, the server, the host (and sh)
    const launcher = processesNaming('scripts/demo.mjs').find((p) => pids.includes(p))!;
    process.kill(launcher, 'SIGTERM');
    expect(await until(() => pids.every((p) => !alive(p)), 15_000)).toBe(true);
  }, 180_000);

  it('killing the shell npm ran it in, with SIGKILL, stops them too', async () => {
    const dir = join(data, 'kill');
    const { shell, pids } = await startDemo(dir);
    expect(pids.length).toBeGreaterThanOrEqual(3); // the launcher, the server, the host (and sh)
    shell.kill('SIGKILL');
    expect(await until(() => pids.every((p) => !alive(p)), 15_000)).toBe(true);
  }, 180_000);
});
