/**
 * The mirror suite: two devices that are never online together meet through one blob store,
 * compaction through it, and writers restarted over it. Every blob store runs it over a real
 * backend (S3, a directory), each device on stores from the given factory.
 */
import { describe, expect, it } from 'vitest';
import type { StoreFactory } from '../adapter.js';
import type { BlobStore } from '../blob-store.js';
import type { MincaError } from '../errors.js';
import { parseSegmentKey } from '../mirror/segment.js';
import type { MirrorErrorContext } from '../mirror/space-mirror.js';
import { createNode, type MincaNode } from '../node.js';
import { fingerprint } from './converged.js';

export interface MirrorTestContext {
  /** A fresh, empty blob store. */
  store: BlobStore;
  /** A fresh factory of stores for one device: each call is another device. */
  stores: () => StoreFactory;
  teardown?: () => Promise<void>;
}

interface Device {
  stores: StoreFactory;
  errors: Array<{ error: MincaError; where: MirrorErrorContext }>;
  open(): Promise<MincaNode>;
}

function device(context: MirrorTestContext): Device {
  const stores = context.stores();
  const errors: Device['errors'] = [];
  return {
    stores,
    errors,
    open: () =>
      createNode({
        stores,
        mirrors: [context.store],
        onMirrorError: (error, where) => errors.push({ error, where }),
      }),
  };
}

async function twoDevicesMeet(context: MirrorTestContext): Promise<void> {
  const [one, two] = [device(context), device(context)];
  let a = await one.open();
  const b = await two.open();
  const { id: space } = await a.spaces.create();
  await a.spaces.setRole(space, b.did, 'writer');
  const ticket = await a.spaces.share(space, b.did);
  const kept = await a.records.put(space, 'app.post', { text: 'kept', n: 1 });
  const gone = await a.records.put(space, 'app.post', { text: 'deleted later' });
  const shared = await a.records.put(space, 'app.note', { v: 0 });
  const bytes = new Uint8Array(300 * 1024).map((_, i) => (i * 7) & 0xff);
  const photo = await a.records.addFile(space, bytes, { mime: 'image/png', name: 'p.png' });
  await a.records.put(space, 'app.photo', { photo });
  await a.close(); // a pushes on close, and goes offline

  await b.spaces.join(ticket);
  await b.spaces.syncMirrors(space);
  expect((await b.records.get(space, 'app.post', kept.id))?.body).toEqual({ text: 'kept', n: 1 });
  expect(await b.records.list(space, 'app.post')).toHaveLength(2);
  const read = await b.records.readFile(space, photo); // from the mirror: nobody else has it
  expect(read.length).toBe(bytes.length);
  expect(read.every((x, i) => x === bytes[i])).toBe(true);
  await b.records.delete(space, 'app.post', gone.id);
  await b.records.put(space, 'app.note', { v: 'b' }, { id: shared.id });
  await b.records.put(space, 'app.post', { text: 'from b' });
  const printB = await fingerprint(b, space);
  await b.close();

  a = await one.open();
  await a.spaces.open(space);
  await a.records.put(space, 'app.note', { v: 'a' }, { id: shared.id }); // before a hears of b's
  await a.spaces.syncMirrors(space);
  expect((await a.records.list(space, 'app.post')).map((r) => r.body)).toEqual(
    expect.arrayContaining([{ text: 'kept', n: 1 }, { text: 'from b' }]),
  );
  expect(await a.records.get(space, 'app.post', gone.id)).toBeUndefined();
  const note = await a.records.get(space, 'app.note', shared.id);
  expect(note?.conflicts).toHaveLength(1);
  const printA = await fingerprint(a, space);
  expect(printA).not.toBe(printB);
  await a.close();

  const b2 = await two.open();
  await b2.spaces.open(space);
  await b2.spaces.syncMirrors(space);
  expect(await fingerprint(b2, space)).toBe(printA);
  expect(await b2.records.get(space, 'app.note', shared.id)).toEqual(note);
  await b2.close();
  expect([...one.errors, ...two.errors]).toEqual([]);
}

async function compactsThroughTheStore(context: MirrorTestContext): Promise<void> {
  const writer = device(context);
  const node = await writer.open();
  const { id: space } = await node.spaces.create();
  const segments = async () => (await node.spaces.status(space)).mirrors[0]!.segments;
  let compacted = false;
  for (let i = 0; i < 40; i++) {
    const before = await segments();
    await node.records.put(space, 'app.post', { i });
    await node.spaces.syncMirrors(space);
    if ((await segments()) < before) compacted = true;
  }
  expect(compacted).toBe(true);
  const keys = await context.store.list(`${space}/`);
  expect(keys.length).toBe(await segments());
  expect(keys.length).toBeLessThan(32);
  const print = await fingerprint(node, space);
  const ticket = await node.spaces.share(space, node.did);
  await node.close();
  const reader = device(context);
  const other = await reader.open();
  await other.spaces.join(ticket);
  await other.spaces.syncMirrors(space);
  expect(await fingerprint(other, space)).toBe(print);
  await other.close();
  expect([...writer.errors, ...reader.errors]).toEqual([]);
}

async function restartsNeverReuseNames(context: MirrorTestContext): Promise<void> {
  const writer = device(context);
  let node = await writer.open();
  const { id: space } = await node.spaces.create();
  for (let round = 0; round < 5; round++) {
    await node.records.put(space, 'app.post', { round });
    await node.close();
    node = await writer.open();
    await node.spaces.open(space);
  }
  await node.close();
  const names = (await context.store.list(`${space}/`)).map((k) => parseSegmentKey(k)!);
  expect(new Set(names.map((n) => n.writer)).size).toBe(1);
  expect(new Set(names.map((n) => n.counter)).size).toBe(names.length);
  expect(names.length).toBeGreaterThanOrEqual(5);
}

/** Registers the mirror suite with vitest: each test gets a fresh context from `setup`. */
export function runMirrorTests(name: string, setup: () => Promise<MirrorTestContext>): void {
  describe(`mirrors over ${name}`, () => {
    for (const [title, run] of [
      ['two devices never online together converge, files included', twoDevicesMeet],
      ['compaction through the store loses nothing', compactsThroughTheStore],
      ['a restarted writer never reuses a segment name', restartsNeverReuseNames],
    ] as const) {
      it(title, async () => {
        const context = await setup();
        try {
          await run(context);
        } finally {
          await context.teardown?.();
        }
      }, 60_000);
    }
  });
}
