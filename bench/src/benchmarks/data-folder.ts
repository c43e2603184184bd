// A data folder of 100,000 records (DATA_FOLDER_BENCH_RECORDS sets the count):
// - cold open: a second machine with empty local stores opens a copy of the folder, until it
//   holds every record (reading the segments, verifying every version, storing it), beside
//   reading the same files raw in the same run;
// - reopen: the first device opens its folder again, its local stores already full, beside a
//   raw listing of the same local store's files;
// - a change on one device reaching the other: two devices, each with its own folder, kept in
//   step by the simulated sync service (a tick every 250 ms, each file due 0–3 ticks later,
//   torn writes and conflict copies at its default rates), with folderStores' default
//   intervals (push 1 s after a change, pull every 2 s). Beside it, the time the service alone
//   takes to carry one new file, in the same run.
// Without fsync (sync: false), so the disk's flush time isn't what is measured.
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode, type MincaNode, randomKey } from '@minca/core';
import { directoryStores, folderStores } from '@minca/folder';
import { SimulatedSyncService } from '@minca/folder/testing';
import { type Benchmark, type Figure, median, medianMs } from '../harness.js';

const RECORDS = Number(process.env.DATA_FOLDER_BENCH_RECORDS ?? 100_000);
const CHANGES = 7;
const TICK_MS = 250;

interface Device {
  node: MincaNode;
  close(): Promise<void>;
}

async function device(folder: string, local: string, localKey: Uint8Array): Promise<Device> {
  const localStores = directoryStores(local, { sync: false });
  const stores = folderStores(folder, { localKey, local: localStores, sync: false });
  const node = await createNode({ stores });
  return {
    node,
    async close() {
      await node.close();
      await stores.close();
      await localStores.close?.();
    },
  };
}

async function allFiles(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true, withFileTypes: true }))
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const benchmark: Benchmark = {
  name: 'data-folder',
  async run(): Promise<Figure[]> {
    const base = await mkdtemp(join(tmpdir(), 'minca-bench-data-folder-'));
    const localKey = randomKey();
    const podA = join(base, 'a', 'pod');
    const localA = join(base, 'a', 'local');
    try {
      // The first device writes the records; closing pushes what is left to its folder.
      let a = await device(podA, localA, localKey);
      const space = await a.node.spaces.create();
      for (let i = 0; i < RECORDS; i++) {
        await a.node.records.put(space.id, 'app.note', { text: `note ${i}`, n: i });
      }
      await a.close();
      const segments = (await allFiles(join(podA, 'spaces'))).length;

      // Cold open: a second machine over a copy of the folder (a USB stick), nothing local.
      const coldRuns = RECORDS > 20_000 ? 1 : 3;
      const cold: number[] = [];
      for (let run = 0; run < coldRuns; run++) {
        const podB = join(base, `b${run}`, 'pod');
        await cp(podA, podB, { recursive: true });
        const start = performance.now();
        const b = await device(podB, join(base, `b${run}`, 'local'), localKey);
        await b.node.spaces.syncMirrors(space.id);
        const status = await b.node.spaces.status(space.id);
        cold.push(performance.now() - start);
        if (status.versions < RECORDS) throw new Error(`cold open holds ${status.versions}`);
        await b.close();
        if (run < coldRuns - 1) await rm(join(base, `b${run}`), { recursive: true });
      }
      const rawReadMs = await medianMs(3, async () => {
        for (const file of await allFiles(podA)) await readFile(file);
      });

      // Reopen: the first device again, its local stores full.
      const reopenMs = await medianMs(3, async () => {
        const again = await device(podA, localA, localKey);
        const status = await again.node.spaces.status(space.id);
        if (status.versions < RECORDS) throw new Error(`reopen holds ${status.versions}`);
        await again.close();
      });
      const rawListMs = await medianMs(3, async () => {
        await allFiles(join(localA, 'spaces'));
      });

      // A change on one device reaching the other through the service, default intervals.
      const podB = join(base, `b${coldRuns - 1}`, 'pod');
      const service = new SimulatedSyncService(podA, podB, { seed: 7 });
      let ticking = true;
      const ticker = (async () => {
        while (ticking) {
          await service.tick();
          await sleep(TICK_MS);
        }
      })();
      a = await device(podA, localA, localKey);
      const b = await device(podB, join(base, `b${coldRuns - 1}`, 'local'), localKey);
      await b.node.spaces.open(space.id);
      const arrivals: number[] = [];
      for (let i = 0; i < CHANGES; i++) {
        const text = `change ${i}`;
        let id = '';
        const arrived = new Promise<number>((resolve) => {
          const check = async () => {
            const record = id && (await b.node.records.get(space.id, 'app.note', id));
            if (record) resolve(performance.now());
          };
          void b.node.records.subscribe(space.id, () => void check());
        });
        const start = performance.now();
        id = (await a.node.records.put(space.id, 'app.note', { text, n: -i })).id;
        const limit = sleep(60_000).then(() => Number.NaN);
        const end = await Promise.race([arrived, limit]);
        if (Number.isNaN(end)) throw new Error(`change ${i} did not arrive in 60 s`);
        arrivals.push(end - start);
      }
      // The service alone: one new file from one folder to the other.
      const carried: number[] = [];
      for (let i = 0; i < CHANGES; i++) {
        const start = performance.now();
        await writeFile(join(podA, `probe-${i}.txt`), `probe ${i}`);
        for (let waited = 0; waited < 600; waited++) {
          if (
            await readFile(join(podB, `probe-${i}.txt`)).then(
              (bytes) => bytes.length === `probe ${i}`.length,
              () => false,
            )
          )
            break;
          await sleep(10);
        }
        carried.push(performance.now() - start);
      }
      ticking = false;
      await ticker;
      await a.close();
      await b.close();

      const n = RECORDS.toLocaleString('en');
      const arrival = median(arrivals);
      const serviceMs = median(carried);
      const coldMs = median(cold);
      return [
        {
          name: `cold open of ${n} records from a copied folder (${segments} segments)`,
          value: Math.round(coldMs),
          unit: 'ms',
          note: `${(coldMs / rawReadMs).toFixed(1)}× reading its files raw (${Math.round(rawReadMs)} ms); ${coldRuns} run(s)`,
        },
        {
          name: `reopen of ${n} records, local stores full`,
          value: Math.round(reopenMs),
          unit: 'ms',
          note: `${(reopenMs / rawListMs).toFixed(1)}× listing the local files raw (${Math.round(rawListMs)} ms)`,
        },
        {
          name: `a change reaching the other device, ${n} records held`,
          value: Math.round(arrival),
          unit: 'ms',
          note: `${(arrival / serviceMs).toFixed(1)}× the service carrying one file (${Math.round(serviceMs)} ms); push 1 s, pull 2 s`,
        },
      ];
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  },
};

export default benchmark;
