/**
 * The page the Chromium test loads: runs the storage adapter and blob store conformance suites
 * over the handle seam, on real OPFS folders (`navigator.storage.getDirectory()`).
 */
import { runBlobStoreTests, runStorageAdapterTests } from '@minca/core/testing';
import { removeAndPrune } from '../../src/folder-fs.ts';
import { handleFolder } from '../../src/handle-folder.ts';
import { createDirectoryBlobStore, directoryStores } from '../../src/index.ts';
import { registered } from './vitest-shim.ts';

let folders = 0;

/** A fresh OPFS folder, and a teardown removing it. */
async function opfsFolder() {
  const root = await navigator.storage.getDirectory();
  const name = `check-${Date.now()}-${folders++}`;
  const dir = await root.getDirectoryHandle(name, { create: true });
  return { dir, teardown: () => root.removeEntry(name, { recursive: true }) };
}

runStorageAdapterTests('directoryStores over OPFS', async () => {
  const { dir, teardown } = await opfsFolder();
  return { factory: directoryStores(dir), reopen: async () => directoryStores(dir), teardown };
});

runStorageAdapterTests('directoryStores over OPFS, shared', async () => {
  const { dir, teardown } = await opfsFolder();
  const open = () => directoryStores(dir, { shared: true });
  return { factory: open(), reopen: async () => open(), teardown };
});

runBlobStoreTests('createDirectoryBlobStore over OPFS', async () => {
  const { dir, teardown } = await opfsFolder();
  return { store: createDirectoryBlobStore(dir), teardown };
});

// Chromium locks a folder while removeEntry prunes it; a write into it meanwhile must still land.
registered.push({
  name: 'handle seam › a write into a folder being pruned lands',
  run: async () => {
    const { dir, teardown } = await opfsFolder();
    try {
      const fs = handleFolder(dir);
      const one = new Uint8Array([1]);
      for (let round = 0; round < 40; round++) {
        await fs.writeFile(['a', 'b', 'old'], one, { sync: false });
        await Promise.all([
          removeAndPrune(fs, ['a', 'b', 'old'], 0),
          fs.writeFile(['a', 'b', `new-${round}`], one, { sync: false }),
        ]);
        const back = await fs.readFile(['a', 'b', `new-${round}`]);
        if (back?.[0] !== 1) throw new Error(`round ${round}: the write did not land`);
        await removeAndPrune(fs, ['a', 'b', `new-${round}`], 0);
      }
    } finally {
      await teardown();
    }
  },
});

/** One line per check: its name, and the error it failed with. */
export interface CheckResult {
  name: string;
  ms: number;
  error?: string;
}

/**
 * Left out here: OPFS writes a file in about 9 ms in this Chromium, so 10,000 keys take minutes.
 * The Node run covers it over the same adapter code; the seam is what this page tests.
 */
const SLOW = / › 10,000 keys$/;

async function runChecks(): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of registered) {
    if (SLOW.test(check.name)) continue;
    const start = performance.now();
    try {
      await check.run();
      results.push({ name: check.name, ms: performance.now() - start });
    } catch (error) {
      const message = String((error as Error)?.stack ?? error);
      results.push({ name: check.name, ms: performance.now() - start, error: message });
    }
    const result = results.at(-1)!;
    console.log(
      `${result.error ? `failed: ${result.error}` : 'passed'} ${check.name} ${Math.round(result.ms)} ms`,
    );
  }
  return results;
}

(globalThis as { runFolderChecks?: () => Promise<CheckResult[]> }).runFolderChecks = runChecks;
