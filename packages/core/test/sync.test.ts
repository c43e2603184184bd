import { describe, expect, it } from 'vitest';
import type { MincaNode } from '../src/node.js';
import { connect, converged, nodeFixture, sharedSpace, until } from './sync-helpers.js';

const { make } = nodeFixture();

describe('sync between nodes', () => {
  it('two members converge both ways, and report synced and level', async () => {
    const [a, b] = [await make(), await make()];
    const space = await sharedSpace(a, [b]);
    for (let i = 0; i < 30; i++) await a.records.put(space, 'app.post', { from: 'a', i });
    for (let i = 0; i < 20; i++) await b.records.put(space, 'app.note', { from: 'b', i });
    connect(a, b);
    await converged([a, b], space);
    expect(await b.records.list(space, 'app.post')).toHaveLength(30);
    expect(await a.records.list(space, 'app.note')).toHaveLength(20);
    const level = async (n: MincaNode) => (await n.spaces.status(space)).peers[0]?.level === true;
    await until(async () => (await level(a)) && (await level(b)), 5000, 'both to be level');
    const status = await b.spaces.status(space);
    expect(status.peers).toEqual([{ did: a.did, synced: true, level: true }]);

    // Live: a write after connecting arrives without waiting for a heartbeat.
    const late = await b.records.put(space, 'app.post', { from: 'b', late: true });
    await until(
      async () => (await a.records.get(space, 'app.post', late.id)) !== undefined,
      5000,
      'the late write',
    );
  });

  it('passes versions along a chain of peers', async () => {
    const [a, b, c] = [await make(), await make(), await make()];
    const space = await sharedSpace(a, [b, c]);
    const [ab, ba] = connect(a, b);
    const [bc, cb] = connect(b, c);
    (globalThis as { peers?: unknown }).peers = { ab, ba, bc, cb };
    const post = await c.records.put(space, 'app.post', { hop: 2 });
    await until(
      async () => (await a.records.get(space, 'app.post', post.id)) !== undefined,
      10_000,
      'two hops',
    );
    await converged([a, b, c], space);
  });

  it('merges concurrent edits into one winner with visible conflicts', async () => {
    const [a, b] = [await make(), await make()];
    const space = await sharedSpace(a, [b]);
    const post = await a.records.put(space, 'app.post', { v: 0 });
    const [pa] = connect(a, b);
    await until(async () => (await b.records.get(space, 'app.post', post.id)) !== undefined);
    pa.close('partition');
    await a.records.put(space, 'app.post', { v: 'a' }, { id: post.id });
    await b.records.put(space, 'app.post', { v: 'b' }, { id: post.id });
    connect(a, b);
    await converged([a, b], space);
    const [ra, rb] = [
      await a.records.get(space, 'app.post', post.id),
      await b.records.get(space, 'app.post', post.id),
    ];
    expect(ra).toEqual(rb);
    expect(ra!.conflicts).toHaveLength(1);
  });

  it('shares nothing with a peer that is not a member, and refuses a reader’s writes', async () => {
    const [a, stranger, reader] = [await make(), await make(), await make()];
    const space = await sharedSpace(a, [reader], 'reader');
    await stranger.spaces.join(await a.spaces.share(space, stranger.did)); // has the key, but no role
    await a.records.put(space, 'app.post', { secret: true });
    const [, ps] = connect(a, stranger);
    connect(a, reader);
    await until(
      async () => (await reader.records.list(space, 'app.post')).length === 1,
      5000,
      'the reader to get the post',
    );
    // A reader's node writes nothing: it would not stand.
    await expect(reader.records.put(space, 'app.post', { by: 'reader' })).rejects.toMatchObject({
      code: 'not_authorized',
    });
    expect((await a.spaces.status(space)).versions).toBe(2); // the grant and the post
    expect((await reader.spaces.status(space)).versions).toBe(2);
    await until(() => ps.did !== undefined);
    expect(ps.spaces()).toEqual([]);
    expect(await stranger.records.list(space, 'app.post')).toEqual([]);
  });
});
