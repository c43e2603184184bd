/**
 * Data folders end to end: devices converging through a simulated sync service, a folder
 * copied to a USB stick, and two copies of one folder sharing a device's local stores.
 */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createMemoryTransportPair,
  createNode,
  type MincaError,
  type MincaNode,
  randomKey,
  SigningKey,
} from '@minca/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { directoryStores, type FolderStoreFactory, folderStores } from '../src/node.ts';
import { SimulatedSyncService } from '../src/testing/sync-service.ts';
import { tempDir } from './temp-dir.ts';

let dir: string;
let teardown: () => Promise<void>;
const opened: Device[] = [];
beforeEach(async () => ({ dir, teardown } = await tempDir()));
afterEach(async () => {
  // Closed even when a test failed, so nothing writes into the folder being removed.
  for (const d of opened.splice(0)) await d.close().catch(() => {});
  await teardown();
});

interface Device {
  node: MincaNode;
  stores: FolderStoreFactory;
  folder: string;
  mirrorErrors: MincaError[];
  close(): Promise<void>;
}

/** A device: its own local stores, over `folder`. */
async function device(
  folder: string,
  local: string,
  localKey: Uint8Array,
  key?: SigningKey,
): Promise<Device> {
  const mirrorErrors: MincaError[] = [];
  const localStores = directoryStores(local, { sync: false });
  const stores = folderStores(folder, {
    basePath: 'acct',
    localKey,
    local: localStores,
    sync: false,
    onProblem: () => {},
  });
  const node = await createNode({
    stores,
    ...(key ? { key } : {}),
    onMirrorError: (error) => mirrorErrors.push(error),
  });
  const d: Device = {
    node,
    stores,
    folder,
    mirrorErrors,
    async close() {
      await node.close();
      await stores.close();
      await localStores.close?.();
    },
  };
  opened.push(d);
  return d;
}

/** The notes of `space`, after a pull from the folder (a space pulls when it opens). */
async function texts(node: MincaNode, space: string): Promise<string[]> {
  await node.spaces.syncMirrors(space).catch(() => {});
  const records = await node.records.list<{ text: string }>(space, 'app.note');
  return records.map((r) => r.body.text).sort();
}

/** Mirrors every open space of `node` now; a failure (a torn file) is tried next round. */
async function syncAll(node: MincaNode, spaces: readonly string[]): Promise<void> {
  for (const id of spaces) await node.spaces.syncMirrors(id).catch(() => {});
}

it('keeps two devices in step through a sync service that tears, delays and conflicts', async () => {
  const seed = Number(process.env.SYNC_SEED ?? (Date.now() % 2 ** 31) + 1);
  const localKey = randomKey();
  const a = await device(join(dir, 'a', 'pod'), join(dir, 'a', 'local'), localKey);
  const service = new SimulatedSyncService(a.folder, join(dir, 'b', 'pod'), {
    seed,
    halfWrites: 0.3,
    conflictCopies: 0.2,
  });
  const space = await a.node.spaces.create();
  const expected: string[] = [];
  const write = async (d: Device, id: string, text: string) => {
    await d.node.records.put(id, 'app.note', { text });
    if (id === space.id) expected.push(text);
  };
  for (let i = 0; i < 5; i++) await write(a, space.id, `a-${i}`);
  await a.node.spaces.syncMirrors(space.id);
  // The registry and the first segments reach the second device's folder.
  for (let i = 0; i < 20; i++) await service.tick();
  await service.flush();
  const b = await device(join(dir, 'b', 'pod'), join(dir, 'b', 'local'), localKey);
  expect(await b.node.spaces.list()).toEqual([space.id]);

  let second: string | undefined;
  const secondExpected: string[] = [];
  for (let round = 0; round < 40; round++) {
    await write(a, space.id, `a-r${round}`);
    await write(b, space.id, `b-r${round}`);
    if (round === 8) second = (await b.node.spaces.create()).id;
    if (second && round % 3 === 0) {
      await b.node.records.put(second, 'app.note', { text: `second-${round}` });
      secondExpected.push(`second-${round}`);
    }
    // The first device opens the second space once its registry entry has come.
    const known = await a.node.spaces.list();
    await syncAll(a.node, known);
    await syncAll(b.node, second ? [space.id, second] : [space.id]);
    await service.tick();
  }

  let settled = false;
  for (let round = 0; round < 60 && !settled; round++) {
    await service.flush();
    await syncAll(a.node, await a.node.spaces.list());
    await syncAll(b.node, await b.node.spaces.list());
    await service.tick();
    const [sa, sb] = await Promise.all([
      a.node.spaces.status(space.id),
      b.node.spaces.status(space.id),
    ]);
    settled =
      service.idle &&
      sa.fingerprint === sb.fingerprint &&
      (await a.node.spaces.list()).length === 2 &&
      (await texts(a.node, second!)).length === secondExpected.length;
  }
  const context = `seed ${seed}, service ${JSON.stringify(service.counts)}`;
  expect(settled, context).toBe(true);
  expect(await texts(a.node, space.id), context).toEqual(expected.sort());
  expect(await texts(b.node, space.id), context).toEqual(expected.sort());
  expect(await texts(a.node, second!), context).toEqual(secondExpected.sort());
  // The service did tear files and leave conflict copies along the way, and compaction ran.
  expect(service.counts.halfWrites, context).toBeGreaterThan(0);
  expect(service.counts.conflictCopies, context).toBeGreaterThan(0);
  // Over 32 segments each, so both compacted, and the service carried the deletes across.
  expect(service.counts.deletes, context).toBeGreaterThan(0);
  // Torn segments are reported as malformed, and read again later; nothing else went wrong.
  for (const error of [...a.mirrorErrors, ...b.mirrorErrors]) {
    expect(error.code, `${error.message} (${context})`).toBe('malformed');
  }
  await a.close();
  await b.close();
}, 120_000);

it('holds the whole account in a folder copied to a USB stick', async () => {
  const localKey = randomKey();
  const a = await device(join(dir, 'pod'), join(dir, 'a-local'), localKey);
  const one = await a.node.spaces.create();
  const two = await a.node.spaces.create();
  for (let i = 0; i < 30; i++) {
    await a.node.records.put(i % 2 ? one.id : two.id, 'app.note', { text: `note ${i}` });
  }
  await a.close(); // pushes what is left
  await cp(join(dir, 'pod'), join(dir, 'usb', 'pod'), { recursive: true });

  // Another machine: nothing of its own but the stick and the account's key.
  const c = await device(join(dir, 'usb', 'pod'), join(dir, 'c-local'), localKey);
  expect(await c.node.spaces.list()).toEqual([one.id, two.id].sort());
  expect(await texts(c.node, one.id)).toHaveLength(15);
  expect(await texts(c.node, two.id)).toHaveLength(15);
  const owner = await c.node.spaces.status(one.id);
  expect(owner.owner).toBe(one.owner);
  // It writes as the account: the registry holds the node key.
  expect(c.node.did).toBe(one.owner);
  await c.node.records.put(one.id, 'app.note', { text: 'from the stick' });
  expect(await texts(c.node, one.id)).toContain('from the stick');
  await c.close();
});

it('fills in two copies of one folder, opened one at a time on one device, from a peer', async () => {
  const localKey = randomKey();
  const local = join(dir, 'local');
  const first = await device(join(dir, 'pod'), local, localKey);
  const space = await first.node.spaces.create();
  await first.node.records.put(space.id, 'app.note', { text: 'before the copy' });
  // Another machine of the account signs with a device key of its own.
  const otherKey = SigningKey.generate();
  await first.node.spaces.setRole(space.id, otherKey.did, 'writer');
  await first.close();
  await cp(join(dir, 'pod'), join(dir, 'copy'), { recursive: true });

  // One copy at a time, sharing this device's local stores.
  const inCopy = await device(join(dir, 'copy'), local, localKey);
  await inCopy.node.records.put(space.id, 'app.note', { text: 'in the copy' });
  await inCopy.close();
  const again = await device(join(dir, 'pod'), local, localKey);
  await again.node.records.put(space.id, 'app.note', { text: 'in the original' });
  // The device holds everything written through either copy.
  expect(await texts(again.node, space.id)).toEqual([
    'before the copy',
    'in the copy',
    'in the original',
  ]);
  await again.close();

  // A version known to be in one copy is not pushed to the other: a machine reading only the
  // original lacks what was written through the copy...
  const other = await device(join(dir, 'pod'), join(dir, 'other-local'), localKey, otherKey);
  expect(await texts(other.node, space.id)).toEqual(['before the copy', 'in the original']);
  // ...until it meets a peer that has it: the device, over its copy.
  const device1 = await device(join(dir, 'copy'), local, localKey);
  const [x, y] = createMemoryTransportPair();
  device1.node.connect(x);
  other.node.connect(y);
  for (let i = 0; i < 200 && (await texts(other.node, space.id)).length < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(await texts(other.node, space.id)).toEqual([
    'before the copy',
    'in the copy',
    'in the original',
  ]);
  await device1.close();
  await other.close();
});
