/**
 * The records suite: the node's record behaviour, run over any store factory, so the same node
 * code is shown to work unchanged on every adapter.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreFactory } from '../adapter.js';
import { isMincaError } from '../errors.js';
import type { SigningKey } from '../keys.js';
import { createNode, type MincaNode } from '../node.js';
import { createMemoryTransportPair } from '../sync/memory-transport.js';
import { sleep } from '../timers.js';
import { fingerprint } from './converged.js';

/** A fresh factory, and how to get the same storage back after a restart. */
export interface RecordsTestContext {
  factory: StoreFactory;
  /** A new factory over the same storage; without it the same factory is opened again. */
  reopen?: () => Promise<StoreFactory>;
  teardown?: () => Promise<void>;
}

async function rejects(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isMincaError(error), `expected a MincaError ${code}, got ${String(error)}`).toBe(true);
  expect((error as { code: string }).code).toBe(code);
}

/** Registers the records suite with vitest. */
export function runRecordsTests(name: string, setup: () => Promise<RecordsTestContext>): void {
  describe(`records over ${name}`, () => {
    let ctx: RecordsTestContext | undefined;
    const others: RecordsTestContext[] = [];
    const nodes: MincaNode[] = [];
    const start = async (factory?: StoreFactory, key?: SigningKey) => {
      ctx ??= await setup();
      const node = await createNode({ stores: factory ?? ctx.factory, ...(key ? { key } : {}) });
      nodes.push(node);
      return node;
    };
    afterEach(async () => {
      for (const node of nodes.splice(0)) await node.close();
      await ctx?.teardown?.();
      ctx = undefined;
      for (const other of others.splice(0)) await other.teardown?.();
    });

    it('writes, reads, lists, updates and deletes records', async () => {
      const node = await start();
      const space = await node.spaces.create();
      const a = await node.records.put(space.id, 'app.post', { text: 'first', n: 1 });
      const b = await node.records.put(space.id, 'app.post', {
        text: 'second',
        bytes: new Uint8Array([1, 2]),
      });
      expect(a.body).toEqual({ text: 'first', n: 1 });
      expect((await node.records.get(space.id, 'app.post', b.id))?.body).toEqual({
        text: 'second',
        bytes: new Uint8Array([1, 2]),
      });
      expect((await node.records.list(space.id, 'app.post')).map((r) => r.id)).toEqual(
        [a.id, b.id].sort(),
      );
      const newest = await node.records.list(space.id, 'app.post', { order: 'newest', limit: 1 });
      expect(newest.map((r) => r.id)).toEqual([b.id]);

      const updated = await node.records.put(
        space.id,
        'app.post',
        { text: 'edited' },
        { id: a.id },
      );
      expect(updated.id).toBe(a.id);
      expect(updated.version).not.toBe(a.version);
      expect(updated.conflicts).toEqual([]);
      expect((await node.records.get(space.id, 'app.post', a.id))?.body).toEqual({
        text: 'edited',
      });

      expect(await node.records.delete(space.id, 'app.post', a.id)).toBe(true);
      expect(await node.records.get(space.id, 'app.post', a.id)).toBeUndefined();
      expect(await node.records.delete(space.id, 'app.post', a.id)).toBe(false);
      expect((await node.records.list(space.id, 'app.post')).map((r) => r.id)).toEqual([b.id]);
      expect((await node.spaces.status(space.id)).versions).toBe(4);
    });

    it('takes puts made at once to one record in call order, with no conflict', async () => {
      const node = await start();
      const space = await node.spaces.create();
      const { id } = await node.records.put(space.id, 'app.post', { n: 0 });
      // Not awaited one by one: each must still supersede the one called before it.
      const puts = await Promise.all(
        [1, 2, 3, 4, 5].map((n) => node.records.put(space.id, 'app.post', { n }, { id })),
      );
      expect(puts.map((p) => p.conflicts)).toEqual([[], [], [], [], []]);
      const now = await node.records.get(space.id, 'app.post', id);
      expect(now?.body).toEqual({ n: 5 });
      expect(now?.conflicts).toEqual([]);
    });

    it('keeps everything across a restart', async () => {
      const first = await start();
      const space = await first.spaces.create();
      const ids: string[] = [];
      for (let i = 0; i < 20; i++)
        ids.push((await first.records.put(space.id, 'app.item', { i })).id);
      await first.records.delete(space.id, 'app.item', ids[0]!);
      const before = await first.spaces.status(space.id);
      const did = first.did;
      await first.close();
      nodes.splice(nodes.indexOf(first), 1);

      const factory = ctx!.reopen ? await ctx!.reopen() : ctx!.factory;
      const second = await start(factory);
      expect(second.did).toBe(did);
      expect(await second.spaces.list()).toEqual([space.id]);
      const after = await second.spaces.status(space.id);
      expect(after.fingerprint).toBe(before.fingerprint);
      expect(after.versions).toBe(21);
      const items = await second.records.list(space.id, 'app.item');
      expect(items).toHaveLength(19);
      expect(
        items.map((r) => r.body).sort((x, y) => (x as { i: number }).i - (y as { i: number }).i)[0],
      ).toEqual({ i: 1 });
      // A write after the restart still supersedes what was there.
      const next = await second.records.put(space.id, 'app.item', { i: 100 }, { id: ids[1]! });
      expect(next.conflicts).toEqual([]);
    });

    it('refuses bad calls with typed errors and loses nothing', async () => {
      const node = await start();
      const space = await node.spaces.create();
      const kept = await node.records.put(space.id, 'app.post', { text: 'kept' });
      const before = await node.spaces.status(space.id);

      await rejects(
        node.records.put('nosuchspaceaaaaaaaaaaaaaaa', 'app.post', { a: 1 }),
        'unknown_space',
      );
      await rejects(node.records.put('../etc', 'app.post', { a: 1 }), 'unknown_space');
      await rejects(node.records.put(space.id, 'Post', { a: 1 }), 'invalid_name');
      await rejects(node.records.put(space.id, 'sys.member', { a: 1 }), 'invalid_name');
      await rejects(
        node.records.put(space.id, 'app.post', { a: 1 }, { id: 'bad id' }),
        'invalid_name',
      );
      await rejects(
        node.records.put(space.id, 'app.post', { f: () => 1 } as never),
        'invalid_input',
      );
      await rejects(
        node.records.put(space.id, 'app.post', { u: undefined } as never),
        'invalid_input',
      );
      await rejects(node.records.put(space.id, 'app.post', { n: Number.NaN }), 'invalid_input');
      await rejects(
        node.records.put(space.id, 'app.post', { d: new Date() } as never),
        'invalid_input',
      );
      await rejects(node.records.put(space.id, 'app.post', { s: '\ud800' }), 'invalid_input');
      await rejects(
        node.records.put(space.id, 'app.post', { big: 'x'.repeat(300 * 1024) }),
        'too_large',
      );
      const files = Array.from({ length: 17 }, (_, i) => ({
        $file: i.toString(16).padStart(64, '0'),
        key: new Uint8Array(32),
        size: 1,
      }));
      await rejects(node.records.put(space.id, 'app.post', { files }), 'too_large');
      // Sixteen is allowed, and named on the version.
      const sixteen = await node.records.put(space.id, 'app.post', { files: files.slice(0, 16) });
      expect(sixteen.files).toHaveLength(16);

      const after = await node.spaces.status(space.id);
      expect(after.versions).toBe(before.versions + 1);
      expect((await node.records.get(space.id, 'app.post', kept.id))?.body).toEqual({
        text: 'kept',
      });

      await node.close();
      await rejects(node.records.get(space.id, 'app.post', kept.id), 'closed');
      await rejects(node.spaces.create(), 'closed');
    });

    it('syncs with a node on another store until both hold the same', async () => {
      const a = await start();
      const other = await setup();
      others.push(other);
      const b = await start(other.factory);
      const space = (await a.spaces.create()).id;
      await a.spaces.setRole(space, b.did, 'writer');
      await b.spaces.join(await a.spaces.share(space, b.did));
      for (let i = 0; i < 25; i++) await a.records.put(space, 'app.post', { from: 'a', i });
      for (let i = 0; i < 25; i++) await b.records.put(space, 'app.note', { from: 'b', i });
      const [ta, tb] = createMemoryTransportPair();
      a.connect(ta);
      b.connect(tb);
      const print = (n: MincaNode) => fingerprint(n, space);
      for (let i = 0; i < 500 && (await print(a)) !== (await print(b)); i++) {
        await sleep(10);
      }
      expect(await print(b)).toBe(await print(a));
      expect(await b.records.list(space, 'app.post')).toHaveLength(25);
      expect(await a.records.list(space, 'app.note')).toHaveLength(25);
    });
  });
}
