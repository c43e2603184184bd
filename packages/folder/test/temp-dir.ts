/** Temp folders for tests, removed by the returned teardown. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function tempDir(): Promise<{ dir: string; teardown: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'minca-folder-'));
  // Retried: a store closing may still be writing its last file as the folder is removed.
  return { dir, teardown: () => rm(dir, { recursive: true, force: true, maxRetries: 5 }) };
}
