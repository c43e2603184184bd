/**
 * Short invite links' sealed bytes on the demo's server: kept under a short random id, given
 * back once asked by it, bounded in size, and nothing else taken.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { INVITE_ID, inviteStore, MAX_INVITE_BYTES } from '../server/invites.ts';
import { type AppServer, serveApp } from '../server/serve-app.ts';

let dir: string;
let app: AppServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'minca-demo-invites-'));
  app = await serveApp({
    root: dir,
    host: () => undefined,
    invites: inviteStore(join(dir, 'inv')),
  });
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const url = (path: string) => new URL(path, app.url).href;

it('keeps sealed bytes under a short id and gives them back', async () => {
  const sealed = crypto.getRandomValues(new Uint8Array(1500));
  const put = await fetch(url('/invites'), { method: 'POST', body: sealed });
  expect(put.status).toBe(201);
  const { id } = (await put.json()) as { id: string };
  expect(id).toMatch(INVITE_ID);
  const got = await fetch(url(`/invites/${id}`));
  expect(got.status).toBe(200);
  expect(new Uint8Array(await got.arrayBuffer())).toEqual(sealed);
  // Two puts never share an id.
  const again = await fetch(url('/invites'), { method: 'POST', body: sealed });
  expect(((await again.json()) as { id: string }).id).not.toBe(id);
});

it('refuses what is not one: too large, empty, an unknown or malformed id', async () => {
  const big = await fetch(url('/invites'), {
    method: 'POST',
    body: new Uint8Array(MAX_INVITE_BYTES + 1),
  });
  expect(big.status).toBe(413);
  expect((await fetch(url('/invites'), { method: 'POST', body: new Uint8Array(0) })).status).toBe(
    400,
  );
  expect((await fetch(url('/invites/AAAAAAAAAAAA'))).status).toBe(404);
  expect((await fetch(url('/invites/..%2F..%2Fetc'))).status).toBe(404);
  expect((await fetch(url('/invites/%E0%A4%A'))).status).toBe(400);
});
