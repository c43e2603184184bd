/**
 * The demo's host over real WebSocket and SQLite, with two nodes in Node standing in for the
 * browsers: the owner hands it an invite, a joiner syncs through it, and bad input is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode, keepConnected, type MincaNode, type WebSocketLike } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningHost, startHost } from '../server/host.ts';
import { askHostToHold, hostDidOf } from '../src/worker/host-hold.ts';
import { decodeTicket, encodeTicket } from '../src/worker/host-ticket.ts';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function host(): Promise<RunningHost> {
  const dataDir = mkdtempSync(join(tmpdir(), 'minca-demo-host-test-'));
  const running = await startHost({ dataDir });
  cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
  cleanup.push(() => running.close());
  return running;
}

async function node(to: RunningHost): Promise<MincaNode> {
  const n = await createNode({ stores: memoryStores() });
  const link = keepConnected(
    () => new WebSocket(to.url) as unknown as WebSocketLike,
    (t) => n.connect(t),
  );
  cleanup.push(() => n.close());
  cleanup.push(() => link.close());
  return n;
}

const hold = (h: RunningHost, body: string) =>
  fetch(`http://127.0.0.1:${h.port}/hold`, { method: 'POST', body });

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = await fn();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('not reached in 300 tries');
}

describe('the demo host', () => {
  it('holds a space from an invite and relays between two nodes', async () => {
    const h = await host();
    const a = await node(h);
    const b = await node(h);
    const space = await a.spaces.create();
    await a.records.put(space.id, 'app.post', { text: 'hi' });
    const config = { sync: h.url, hold: `http://127.0.0.1:${h.port}/hold` };
    const held = async () => (await (await fetch(`${config.hold}/${space.id}`)).json()).held;
    expect(await held()).toBe(false);
    await askHostToHold(a, config, space.id);
    expect(await held()).toBe(true);
    expect(await h.node.spaces.list()).toEqual([space.id]);
    // What an invite link carries: the code, and the owner's grant of the host's role.
    const code = await a.spaces.invite(space.id);
    const link = encodeTicket(await a.spaces.share(space.id, await hostDidOf(config)));
    await b.spaces.join(code);
    await b.spaces.join(decodeTicket(link));
    const posts = await until(
      () => b.records.list(space.id, 'app.post'),
      (p) => p.length === 1,
    );
    expect(posts[0]!.body).toEqual({ text: 'hi' });
    await b.records.put(space.id, 'app.post', { text: 'back' });
    await until(
      () => a.records.list(space.id, 'app.post'),
      (p) => p.length === 2,
    );
  });

  it('refuses a bad invite with its reason and keeps what it holds', async () => {
    const h = await host();
    const a = await node(h);
    const space = await a.spaces.create();
    expect((await hold(h, await a.spaces.invite(space.id, { role: 'reader' }))).status).toBe(201);
    const bad = await hold(h, 'minca-invite:not-a-code');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/^(malformed|invalid_input):/);
    const huge = await hold(h, 'x'.repeat(64 * 1024)).catch(() => undefined);
    expect(huge === undefined || huge.status === 413).toBe(true);
    expect(await h.node.spaces.list()).toEqual([space.id]);
  });

  it('refuses an invite link whose host part is not a ticket', () => {
    expect(() => decodeTicket('bm90IGpzb24')).toThrow(/not a space ticket/);
    expect(() => decodeTicket('e30')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });
});
