import * as nodeCryptoModule from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isMincaError } from '../src/errors.js';
import { nodeCrypto } from '../src/node-crypto.js';
import type { SpaceChange } from '../src/space/space-view.js';
import { connect, converged, nodeFixture, sharedSpace, until } from './sync-helpers.js';

const { make } = nodeFixture();

describe('records.putMany', () => {
  it('writes every record in one commit, told once, each read back as put would give it', async () => {
    const node = await make();
    const space = (await node.spaces.create()).id;
    const changes: SpaceChange[] = [];
    await node.records.subscribe(space, (c) => changes.push(c));
    const items = Array.from({ length: 50 }, (_, i) => ({ body: { i, text: `post ${i}` } }));
    const written = await node.records.putMany(space, 'app.post', items);
    expect(written.map((r) => r.body)).toEqual(items.map((item) => item.body));
    await new Promise((r) => setTimeout(r, 10));
    expect(changes).toEqual([{ space, collections: ['app.post'] }]);
    for (const record of written)
      expect(await node.records.get(space, 'app.post', record.id)).toEqual(record);
    expect(await node.records.list(space, 'app.post')).toHaveLength(50);
    // New records written together get ids in the order written: a store's index takes them
    // in at its end, not scattered through it.
    const ids = written.map((r) => r.id);
    expect([...ids].sort()).toEqual(ids);
  });

  it('gives an id that comes twice two versions, the second superseding the first', async () => {
    const node = await make();
    const space = (await node.spaces.create()).id;
    const first = await node.records.put(space, 'app.post', { n: 0 });
    const [a, b, c] = await node.records.putMany(space, 'app.post', [
      { id: first.id, body: { n: 1 } },
      { body: { other: true } },
      { id: first.id, body: { n: 2 } },
    ]);
    expect(a!.id).toBe(first.id);
    expect(c!.body).toEqual({ n: 2 });
    expect(b!.id).not.toBe(first.id);
    const now = await node.records.get(space, 'app.post', first.id);
    expect(now?.body).toEqual({ n: 2 });
    expect(now?.conflicts).toEqual([]);
  });

  it('refuses sys.* and null bodies, writing nothing', async () => {
    const node = await make();
    const space = (await node.spaces.create()).id;
    const refused = async (fn: () => Promise<unknown>) =>
      fn().then(
        () => 'written',
        (error) => (isMincaError(error) ? error.code : String(error)),
      );
    expect(await refused(() => node.records.putMany(space, 'sys.member', [{ body: {} }]))).toBe(
      'invalid_name',
    );
    expect(
      await refused(() =>
        node.records.putMany(space, 'app.post', [{ body: { ok: 1 } }, { body: null as never }]),
      ),
    ).toBe('invalid_input');
    expect(await node.records.list(space, 'app.post')).toEqual([]);
  });

  it('signs batches under one signature that another node checks version by version', async () => {
    const a = await make({ crypto: nodeCrypto(nodeCryptoModule) });
    const b = await make();
    const space = await sharedSpace(a, [b]);
    const items = Array.from({ length: 300 }, (_, i) => ({ body: { i } }));
    await a.records.putMany(space, 'app.post', items, { perSignature: 64 });
    connect(a, b);
    await converged([a, b], space);
    const seen = await b.records.list(space, 'app.post');
    expect(
      seen.map((r) => r.body).sort((x, y) => (x as { i: number }).i - (y as { i: number }).i),
    ).toEqual(items.map((item) => item.body));
  });

  it('refuses the next write of a writer made a reader, though its last write was allowed', async () => {
    const owner = await make();
    const member = await make();
    const space = await sharedSpace(owner, [member]);
    connect(owner, member);
    await member.records.put(space, 'app.post', { n: 1 });
    await member.records.putMany(space, 'app.post', [{ body: { n: 2 } }]);
    await owner.spaces.setRole(space, member.did, 'reader');
    await until(
      async () =>
        (await member.spaces.members(space)).some(
          (m) => m.did === member.did && m.role === 'reader',
        ),
      5000,
      'the member to hear it reads only',
    );
    for (const write of [
      () => member.records.put(space, 'app.post', { n: 3 }),
      () => member.records.putMany(space, 'app.post', [{ body: { n: 4 } }]),
    ])
      await expect(write()).rejects.toMatchObject({ code: 'not_authorized' });
  });
});
