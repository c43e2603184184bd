/**
 * The demo's local host, the CLI's `minca host` run as a child process over SQLite, with the
 * page's server in front: an account asks for a subscription, its space is held without the
 * key, and a joiner gets a post and its photo through the host while the owner is away.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode, keepConnected, type MincaNode, type WebSocketLike } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningHost, startHost } from '../server/host.ts';
import { type AppServer, serveApp } from '../server/serve-app.ts';
import { letHostHold, subscribe } from '../src/worker/host-hold.ts';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function stack(): Promise<{ host: RunningHost; app: AppServer }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'minca-demo-host-test-'));
  cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const host = await startHost({ dataDir });
  cleanup.push(() => host.close());
  const root = mkdtempSync(join(tmpdir(), 'minca-demo-root-'));
  cleanup.push(() => rmSync(root, { recursive: true, force: true }));
  const app = await serveApp({ root, host: () => host });
  cleanup.push(() => app.close());
  return { host, app };
}

function connect(n: MincaNode, to: RunningHost): { close(): void } {
  return keepConnected(
    () => new WebSocket(to.url) as unknown as WebSocketLike,
    (t) => n.connect(t),
  );
}

async function node(): Promise<MincaNode> {
  const n = await createNode({ stores: memoryStores(), fetchFiles: 'all' });
  cleanup.push(() => n.close());
  return n;
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await fn();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('not reached in 400 tries');
}

describe('the demo host', () => {
  it('holds a subscribed account’s space without its key and serves its files to a joiner', async () => {
    const { host, app } = await stack();
    const config = {
      sync: host.url,
      did: host.did,
      subscribe: new URL('/subscribe', app.url).href,
    };
    const [a, b] = [await node(), await node()];
    await subscribe(config, a.did);
    const space = await a.spaces.create();
    await letHostHold(a, config, space.id);
    const photo = new Uint8Array(700_000).map((_, i) => (i * 13) % 251);
    const file = await a.records.addFile(space.id, photo, { mime: 'image/png' });
    await a.records.put(space.id, 'app.post', { text: 'hi', file });
    const code = await a.spaces.invite(space.id);
    const fromA = connect(a, host);
    cleanup.push(() => fromA.close());
    await until(
      () => a.spaces.status(space.id),
      (s) => s.peers.some((p) => p.did === host.did && p.level),
    );

    // B meets only the host: the post and its photo come through it.
    await b.spaces.join(code);
    const fromB = connect(b, host);
    cleanup.push(() => fromB.close());
    const posts = await until(
      () => b.records.list(space.id, 'app.post'),
      (p) => p.length === 1,
    );
    expect((posts[0]!.body as { text: string }).text).toBe('hi');
    const back = await b.records.readFile(space.id, file);
    expect(Buffer.from(back).equals(Buffer.from(photo))).toBe(true);

    // With A and B away, the host still has it all for C.
    fromA.close();
    fromB.close();
    const c = await node();
    await c.spaces.join(await a.spaces.invite(space.id));
    const fromC = connect(c, host);
    cleanup.push(() => fromC.close());
    await until(
      () => c.records.list(space.id, 'app.post'),
      (p) => p.length === 1,
    );
    const again = await c.records.readFile(space.id, file);
    expect(Buffer.from(again).equals(Buffer.from(photo))).toBe(true);
  });

  it('refuses a space from an account with no subscription, with the reason', async () => {
    const { host } = await stack();
    const a = await node();
    const space = await a.spaces.create();
    await a.spaces.allowHolder(space.id, host.did, 'host');
    const ends: string[] = [];
    const link = keepConnected(
      () => new WebSocket(host.url) as unknown as WebSocketLike,
      (t) => {
        const peer = a.connect(t);
        peer.onEnd((reason) => ends.push(String(peer.endReason ?? reason)));
      },
    );
    cleanup.push(() => link.close());
    await until(
      async () => ends,
      (e) => e.length > 0,
    );
    expect(ends[0]).toMatch(/no subscription for did:key:/);
  });

  it('takes only a DID at /subscribe', async () => {
    const { app } = await stack();
    const post = (body: string) =>
      fetch(new URL('/subscribe', app.url), { method: 'POST', body }).catch(() => undefined);
    const bad = await post('not a did');
    expect(bad?.status).toBe(400);
    const huge = await post('x'.repeat(64 * 1024));
    expect(huge === undefined || huge.status === 413).toBe(true);
  });
});
