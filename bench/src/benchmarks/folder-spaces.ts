// A data folder holding many spaces (spec 05 §14): an owner over folderStores makes N spaces,
// each with a record and allowed to a host, then meets that host again (nothing changed) until
// level in every space. Beside each figure, the same owner over memory stores in the same run:
// making a space should cost about as much at the last hundred as at the first (each space's
// mirror lists only its own folder), and a meeting a steady multiple of memory's. Last, the
// CPU the open spaces take while nothing happens (each space's mirror pulls every 2 s).
// Without fsync (sync: false), so the disk's flush time isn't what is measured.
// Knob: MINCA_BENCH_FOLDER_SPACES (N, 1,000).
import * as crypto from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode, nodeCrypto, SigningKey, type StoreFactory } from '@minca/core';
import { directoryStores, folderStores } from '@minca/folder';
import { memoryStores } from '@minca/memory';
import { type Benchmark, median } from '../harness.js';
import { cpuMsSince, levelIn, link, until } from '../meeting.js';

const SPACES = Number(process.env.MINCA_BENCH_FOLDER_SPACES ?? 1000);
const RUNS = 3;
/** How long each of the {@link RUNS} times the spaces are left open and idle is. */
const IDLE_MS = 10_000;

interface Measured {
  /** ms a space, making the first hundred and the last. */
  firstMs: number;
  lastMs: number;
  /** CPU ms of each meeting again, both nodes. */
  meetings: number[];
  /** The share of one core's time taken with every space open and nothing happening. */
  idle: number;
}

/** Makes {@link SPACES} spaces on an owner over `stores`, then meets a memory host again. */
async function measure(stores: StoreFactory): Promise<Measured> {
  const hostKey = SigningKey.generate();
  const host = await createNode({ stores: memoryStores(), key: hostKey, holding: {} });
  const owner = await createNode({ stores, crypto: nodeCrypto(crypto) });
  const ids: string[] = [];
  const hundred = Math.min(100, SPACES);
  const out: Measured = { firstMs: 0, lastMs: 0, meetings: [], idle: 0 };
  try {
    let start = performance.now();
    for (let i = 0; i < SPACES; i++) {
      if (i === SPACES - hundred) start = performance.now();
      const { id } = await owner.spaces.create();
      await owner.records.put(id, 'app.note', { text: `space ${i}` });
      await owner.spaces.allowHolder(id, hostKey.did, 'host');
      ids.push(id);
      if (i === hundred - 1) out.firstMs = (performance.now() - start) / hundred;
    }
    out.lastMs = (performance.now() - start) / hundred;
    let peer = link(owner, host);
    await until(() => levelIn(peer, ids), 'the first meeting');
    for (let run = 0; run < RUNS; run++) {
      peer.close();
      // The host's end hears of the close before the owner connects again.
      await new Promise((r) => setTimeout(r, 100));
      const cpu = process.cpuUsage();
      peer = link(owner, host);
      await until(() => levelIn(peer, ids), 'the meeting again');
      out.meetings.push(cpuMsSince(cpu));
    }
    peer.close();
    // Every space still open (they close after 5 idle minutes): each pulls every 2 s.
    const idle: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const cpu = process.cpuUsage();
      await new Promise((r) => setTimeout(r, IDLE_MS));
      idle.push(cpuMsSince(cpu) / IDLE_MS);
    }
    out.idle = median(idle);
    return out;
  } finally {
    await owner.close();
    await host.close();
  }
}

const bench: Benchmark = {
  name: 'folder-spaces',
  async run() {
    const memory = await measure(memoryStores());
    const base = await mkdtemp(join(tmpdir(), 'minca-bench-folder-spaces-'));
    let folder: Measured;
    try {
      const local = directoryStores(join(base, 'local'), { sync: false });
      const stores = folderStores(join(base, 'folder'), {
        localKey: crypto.randomBytes(32),
        local,
        sync: false,
      });
      try {
        folder = await measure(stores);
      } finally {
        await stores.close();
        await local.close?.();
      }
    } finally {
      await rm(base, { recursive: true, force: true });
    }
    const n = SPACES.toLocaleString('en-US');
    const meeting = (m: Measured) => (1000 * median(m.meetings)) / SPACES;
    return [
      {
        name: `making ${n} spaces in a data folder: the last hundred, a space`,
        value: folder.lastMs,
        unit: 'ms',
        note: `${(folder.lastMs / folder.firstMs).toFixed(2)}× the first hundred's (${folder.firstMs.toFixed(1)} ms); memory stores ${memory.lastMs.toFixed(1)} ms`,
      },
      {
        name: `… meeting its host again, nothing changed: CPU a space, both nodes`,
        value: meeting(folder),
        unit: 'µs',
        note: `${(meeting(folder) / meeting(memory)).toFixed(2)}× memory stores' (${meeting(memory).toFixed(0)} µs)`,
      },
      {
        name: `… every space open and idle, pulling every 2 s: CPU of one core`,
        value: folder.idle * 100,
        unit: '%',
        note: `memory stores ${(memory.idle * 100).toFixed(2)}%`,
      },
    ];
  },
};
export default bench;
