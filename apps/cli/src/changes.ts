/**
 * How a command tells the daemon it wrote: it touches `<local>/changed` after writing this
 * device's stores, and the daemon, which checks every 2 s, reloads them.
 */
import { stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const MARKER = 'changed';

export async function markChanged(local: string): Promise<void> {
  const path = join(local, MARKER);
  const now = new Date();
  try {
    await utimes(path, now, now);
  } catch {
    await writeFile(path, '', { mode: 0o600 });
  }
}

/** The marker's last change (ms), or 0 when no command wrote yet. */
export async function lastChanged(local: string): Promise<number> {
  return (await stat(join(local, MARKER)).catch(() => undefined))?.mtimeMs ?? 0;
}
