// The CLI's results are honest (issue 15): a `sync` that could not sync a space that should be
// shared fails with a reason; a first read of a data folder on a new device waits for its pull;
// a body too deep or too large is bad input (exit 7) before anything walks it. Real `minca`
// processes; the slow peer is a node in this process served over WebSocket on 127.0.0.1.
import { join } from 'node:path';
import { createNode, decodeStrict, type MincaNode, type Transport } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, serveNode } from '../src/host/serve.ts';
import { minca, mincaJson, tempHome } from './minca.ts';

const temps: Array<{ dir: string; remove(): Promise<void> }> = [];
const nodes: MincaNode[] = [];
const served: Served[] = [];
let a: string;
let b: string;
beforeAll(async () => {
  for (const name of ['honest-a', 'honest-b']) temps.push(await tempHome(name));
  [a, b] = temps.map((t) => t.dir) as [string, string];
  await mincaJson(a, ['init']);
});
afterAll(async () => {
  for (const s of served) await s.close();
  for (const n of nodes) await n.close();
  for (const t of temps) await t.remove();
});

/**
 * A carrier-like holder in this process whose `spaces` messages go out `delayMs` late (never,
 * for Infinity): a peer slow to name what it shares.
 */
async function slowHolder(delayMs: number) {
  const node = await createNode({ stores: memoryStores(), holding: {} });
  nodes.push(node);
  const slow = (transport: Transport): Transport => {
    const send = transport.send.bind(transport);
    transport.send = (frame) => {
      const m = decodeStrict(frame, { maxBytes: 4 * 1024 * 1024, maxDepth: 3 }) as { t: string };
      if (m.t !== 'spaces') return send(frame);
      if (Number.isFinite(delayMs))
        setTimeout(() => {
          if (!transport.closed) send(frame);
        }, delayMs);
    };
    return transport;
  };
  const facade = { connect: (t: Transport) => node.connect(slow(t)) } as unknown as MincaNode;
  const server = await serveNode(facade, { bind: '127.0.0.1', port: 0 });
  served.push(server);
  return { node, url: server.url };
}

describe('minca sync, honestly', () => {
  it('waits for a peer slow to name the shared space, and the record arrives', async () => {
    const holder = await slowHolder(4_000);
    const space = (await mincaJson<{ id: string }>(a, ['space', 'create'])).id;
    await mincaJson(a, ['space', 'allow', space, holder.node.did]);
    await mincaJson(a, ['put', space, 'app.post', '{"n":1}']);
    const states = await mincaJson<Array<{ space: string; level: boolean }>>(a, [
      'sync',
      holder.url,
      '--timeout',
      '30',
    ]);
    // Level: the holder has every version A has, the record among them.
    expect(states).toEqual([expect.objectContaining({ space, level: true })]);
    const mine = await mincaJson<Array<{ id: string; fingerprint: string }>>(a, ['space', 'list']);
    const held = await holder.node.spaces.status(space);
    expect(held.fingerprint).toBe(mine.find((s) => s.id === space)?.fingerprint);
  }, 60_000);

  it('fails with a reason when the peer never shares a space that names it', async () => {
    const holder = await slowHolder(Number.POSITIVE_INFINITY);
    const space = (await mincaJson<{ id: string }>(a, ['space', 'create'])).id;
    await mincaJson(a, ['space', 'allow', space, holder.node.did]);
    await mincaJson(a, ['put', space, 'app.post', '{"n":2}']);
    const ran = await minca(a, ['sync', holder.url, '--timeout', '5']);
    expect(ran.code).toBe(5);
    expect(ran.stderr).toContain(`${holder.url} did not share space ${space}`);
  }, 60_000);
});

describe('a data folder on a new device', () => {
  it('a first list waits for the first pull, and shows what the folder holds', async () => {
    const pod = join(a, 'pod');
    const recovery = { env: { MINCA_PASSPHRASE: 'the pod of the honest results test' } };
    await mincaJson(a, ['init', '--folder', pod], recovery);
    const space = (await mincaJson<{ id: string }>(a, ['--home', pod, 'space', 'create'])).id;
    for (let n = 0; n < 3; n++)
      await mincaJson(a, ['--home', pod, 'put', space, 'app.note', JSON.stringify({ n })]);
    // Another HOME has other local stores: a device that has never read this folder (it joins
    // the account with the recovery passphrase first).
    await mincaJson(b, ['device', 'join', '--folder', pod, '--passphrase'], recovery);
    const listed = await mincaJson<Array<{ body: { n: number } }>>(b, [
      '--home',
      pod,
      'list',
      space,
      'app.note',
    ]);
    expect(listed.map((r) => r.body.n).sort()).toEqual([0, 1, 2]);
  }, 60_000);
});

describe('bodies past the bounds', () => {
  it('a body nested 100,000 deep is invalid_input, exit 7, and nothing is written', async () => {
    const space = (await mincaJson<{ id: string }>(a, ['space', 'create'])).id;
    const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
    const ran = await minca(a, ['put', space, 'app.post', '-'], { input: deep });
    expect(ran.code).toBe(7);
    expect(ran.stderr).toMatch(/nests deeper than 32 \(invalid_input\)/);
    expect(ran.stderr).not.toMatch(/call stack/);
    const wide = JSON.stringify({ items: new Array(200_000).fill('xy') });
    const huge = await minca(a, ['put', space, 'app.post', '-'], { input: wide });
    expect(huge.code).toBe(7);
    expect(huge.stderr).toMatch(/larger than 262144 bytes|over 262144/);
    const text = await minca(a, ['put', space, 'app.post', '-'], {
      input: JSON.stringify({ t: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(text.code).toBe(7);
    expect(text.stderr).toMatch(/invalid_input/);
    expect(await mincaJson<unknown[]>(a, ['list', space, 'app.post'])).toEqual([]);
  }, 60_000);
});
