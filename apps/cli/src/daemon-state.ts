/**
 * The daemon's pid file and its state file: `<local>/daemon.pid` makes sure one daemon runs per
 * account, and `<local>/daemon.json`, rewritten every 2 s, is how `minca status` sees what the
 * daemon sees (its peers, synced and level per space) without connecting itself.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError, EXIT } from './cli-error.js';
import { writeFileAtomic } from './secure-files.js';

export interface DaemonState {
  pid: number;
  /** When it was written, ms. */
  updated: number;
  peers: Array<{ url: string; did?: string; connected: boolean; error?: string }>;
  spaces: Array<{
    id: string;
    fingerprint: string;
    versions: number;
    peers: Array<{ did: string; url?: string; synced: boolean; level: boolean }>;
  }>;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes the daemon's place for this account; refuses while another daemon runs. */
export async function claimDaemon(local: string): Promise<() => Promise<void>> {
  const path = join(local, 'daemon.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return async () => {
        await rm(path, { force: true });
        await rm(join(local, 'daemon.json'), { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(await readFile(path, 'utf8').catch(() => ''));
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
        throw new CliError(
          EXIT.refused,
          `a daemon already runs for this account (pid ${pid}): stop it first`,
        );
      }
      await rm(path, { force: true }); // left by a daemon that died
    }
  }
  throw new CliError(EXIT.failed, `cannot claim ${path}`);
}

export async function writeDaemonState(local: string, state: DaemonState): Promise<void> {
  await writeFileAtomic(join(local, 'daemon.json'), JSON.stringify(state), 0o600);
}

/** The running daemon's state, when one runs and wrote in the last 10 s. */
export async function readDaemonState(
  local: string,
  now = Date.now(),
): Promise<DaemonState | undefined> {
  try {
    const state = JSON.parse(await readFile(join(local, 'daemon.json'), 'utf8')) as DaemonState;
    if (now - state.updated > 10_000 || !alive(state.pid)) return undefined;
    return state;
  } catch {
    return undefined;
  }
}
