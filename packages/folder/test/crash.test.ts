/**
 * Crash safety: a child process writing versions and entries in a loop is SIGKILLed at random
 * moments; after each kill the store reopens whole and keeps every write it acknowledged.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { checkStoreIntegrity } from '@minca/core/testing';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { directoryStores } from '../src/node.ts';
import { tempDir } from './temp-dir.ts';

const ROUNDS = 20;
/** Acknowledged writes to wait for before a kill is scheduled, so every round writes. */
const MIN_ACKS = 3;
const ROUND_TIMEOUT_MS = 20_000;

let dir: string;
let teardown: () => Promise<void>;
beforeAll(async () => ({ dir, teardown } = await tempDir()));
afterAll(() => teardown());

/** What the parent learned from stdout: ids acknowledged, deletes intended and acknowledged. */
interface Ledger {
  acked: Set<string>;
  deleting: Set<string>;
  deleted: Set<string>;
}

function runUntilKilled(worker: string, seed: string, ledger: Ledger, killAfterMs: number) {
  return new Promise<{ acks: number }>((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [worker, dir, seed], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffer = '';
    let acks = 0;
    let stderr = '';
    let scheduled = false;
    const guard = setTimeout(() => child.kill('SIGKILL'), ROUND_TIMEOUT_MS);
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!; // a line cut by the kill is not an acknowledgement
      for (const line of lines) {
        const [kind, ...ids] = line.split(' ');
        if (kind === 'ack') {
          acks++;
          for (const id of ids) ledger.acked.add(id);
        } else if (kind === 'intent-delete') ledger.deleting.add(ids[0]!);
        else if (kind === 'ack-delete') ledger.deleted.add(ids[0]!);
      }
      if (!scheduled && acks >= MIN_ACKS) {
        scheduled = true;
        setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      if (signal === 'SIGKILL') resolve({ acks });
      else reject(new Error(`worker exited with ${code ?? signal}: ${stderr}`));
    });
  });
}

it(`survives ${ROUNDS} SIGKILLs mid-write, losing nothing acknowledged`, async () => {
  const worker = inject('crashWorker');
  const ledger: Ledger = { acked: new Set(), deleting: new Set(), deleted: new Set() };
  let totalAcks = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const seed = round.toString(16).padStart(2, '0');
    const { acks } = await runUntilKilled(worker, seed, ledger, Math.random() * 150);
    totalAcks += acks;

    const stores = directoryStores(dir, { sync: false });
    const store = await stores.open('spaces/crash');
    const report = await checkStoreIntegrity(store);
    expect(report.problems, `round ${round}`).toEqual([]);
    expect(report.ok).toBe(true);
    const [a, b] = [await store.get('pair/a'), await store.get('pair/b')];
    expect(a, 'pair/a and pair/b come from one batch').toEqual(b);
    for (const id of ledger.acked) {
      if (ledger.deleting.has(id)) continue;
      expect(await store.get(`v/notes/${id}`), `acknowledged entry ${id}`).toBeDefined();
      expect(await store.getVersion(id), `acknowledged version ${id}`).toBeDefined();
    }
    for (const id of ledger.deleted) {
      expect(await store.get(`v/notes/${id}`), `deleted entry ${id}`).toBeUndefined();
      expect(await store.getVersion(id), `deleted version ${id}`).toBeUndefined();
    }
    await stores.close!();
  }
  expect(totalAcks).toBeGreaterThanOrEqual(ROUNDS * MIN_ACKS);
}, 240_000);
