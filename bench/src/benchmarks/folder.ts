// Directory stores on the local disk: version puts in commits of 100, and a cold open of the
// store they make, beside raw fs doing the same file writes (temp file, then rename, 16 at a
// time) and the same directory reads in the same run. Without fsync by default, since the
// disk's fsync (~7 ms here) would measure the disk; one smaller figure pair is with fsync.
// FOLDER_BENCH_VERSIONS sets the count (default 100,000).
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, open, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { directoryStores } from '@minca/folder';
import { type Benchmark, type Figure, medianMs } from '../harness.js';

const VERSIONS = Number(process.env.FOLDER_BENCH_VERSIONS ?? 100_000);
const SYNCED_VERSIONS = 1_000;
const BATCH = 100;
const BODY_BYTES = 300;
const PARALLEL = 16;

/** Version ids are SHA-256 hashes, so they spread over the 256 folders as real ones do. */
function idOf(n: number): string {
  return createHash('sha256').update(String(n)).digest('hex');
}

function body(n: number): Uint8Array {
  const out = new Uint8Array(BODY_BYTES);
  out.fill(n & 0xff);
  return out;
}

async function eachLimited<T>(items: readonly T[], run: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

/** What a naive store does: each version a file, written to a temp name and renamed. */
async function rawPut(dir: string, ids: readonly number[], sync: boolean): Promise<void> {
  await eachLimited(ids, async (n) => {
    const id = idOf(n);
    const folder = join(dir, id.slice(0, 2));
    const target = join(folder, id);
    const temp = `${target}.${n}.tmp`;
    const handle = await open(temp, 'wx', 0o600).catch(async () => {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      return open(temp, 'wx', 0o600);
    });
    await handle.writeFile(body(n));
    if (sync) await handle.sync();
    await handle.close();
    await rename(temp, target);
  });
}

/** A raw cold open: read every folder of version files. */
async function rawOpen(dir: string): Promise<number> {
  let count = 0;
  for (const folder of await readdir(dir)) count += (await readdir(join(dir, folder))).length;
  return count;
}

async function putVersions(root: string, count: number, sync: boolean) {
  const stores = directoryStores(root, { sync });
  const store = await stores.open('spaces/bench');
  const start = performance.now();
  for (let i = 0; i < count; i += BATCH) {
    const versions = Array.from(
      { length: Math.min(BATCH, count - i) },
      (_, j) => [idOf(i + j), body(i + j)] as const,
    );
    await store.commit({ versions, entries: [], deleteVersions: [] });
  }
  const ms = performance.now() - start;
  await stores.close!();
  return ms;
}

async function rawPutAll(root: string, count: number, sync: boolean): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < count; i += BATCH) {
    await rawPut(
      root,
      Array.from({ length: Math.min(BATCH, count - i) }, (_, j) => i + j),
      sync,
    );
  }
  return performance.now() - start;
}

const benchmark: Benchmark = {
  name: 'folder',
  async run(): Promise<Figure[]> {
    const base = await mkdtemp(join(tmpdir(), 'minca-bench-folder-'));
    try {
      const ours = join(base, 'ours');
      const raw = join(base, 'raw');
      const oursMs = await putVersions(ours, VERSIONS, false);
      const rawMs = await rawPutAll(raw, VERSIONS, false);
      const openMs = await medianMs(3, async () => {
        const stores = directoryStores(ours, { sync: false });
        const store = await stores.open('spaces/bench');
        if ((await store.getVersion(idOf(VERSIONS - 1))) === undefined) throw new Error('lost');
        await stores.close!();
      });
      const rawOpenMs = await medianMs(3, async () => {
        if ((await rawOpen(raw)) !== VERSIONS) throw new Error('lost');
      });
      const syncedMs = await putVersions(join(base, 'ours-sync'), SYNCED_VERSIONS, true);
      const rawSyncedMs = await rawPutAll(join(base, 'raw-sync'), SYNCED_VERSIONS, true);
      const n = VERSIONS.toLocaleString('en');
      return [
        {
          name: `put ${n} versions, commits of ${BATCH}`,
          value: Math.round(VERSIONS / (oursMs / 1000)),
          unit: 'versions/s',
          note: `${(rawMs / oursMs).toFixed(2)}× raw temp+rename (${Math.round(VERSIONS / (rawMs / 1000))}/s)`,
        },
        {
          name: `cold open of ${n} versions`,
          value: Math.round(openMs),
          unit: 'ms',
          note: `${(openMs / rawOpenMs).toFixed(2)}× the time of raw readdir (${Math.round(rawOpenMs)} ms)`,
        },
        {
          name: `put ${SYNCED_VERSIONS.toLocaleString('en')} versions with fsync`,
          value: Math.round(SYNCED_VERSIONS / (syncedMs / 1000)),
          unit: 'versions/s',
          note: `${(rawSyncedMs / syncedMs).toFixed(2)}× raw temp+fsync+rename (${Math.round(SYNCED_VERSIONS / (rawSyncedMs / 1000))}/s)`,
        },
      ];
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  },
};

export default benchmark;
