import { afterEach, describe, expect, it } from 'vitest';
import type { StoreFactory } from '../src/adapter.js';
import { createNode, type MincaNode } from '../src/node.js';
import { fakeStores } from './fake-adapter.js';
import { connect, converged, sharedSpace, until } from './sync-helpers.js';

/** A store factory that counts the spaces opened through it. */
function counting(inner: StoreFactory) {
  const counts = { spaces: 0 };
  const factory: StoreFactory = {
    ...inner,
    open: (path) => {
      if (path.startsWith('spaces/')) counts.spaces++;
      return inner.open(path);
    },
  };
  return { factory, counts };
}

const nodes: MincaNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close();
});

describe('the sharing index', () => {
  it('a handshake opens only the spaces shared with the peer, after a restart too', async () => {
    const { factory, counts } = counting(fakeStores());
    let busy = await createNode({ stores: factory });
    const peer = await createNode({ stores: fakeStores() });
    nodes.push(peer);
    const shared = await sharedSpace(busy, [peer]);
    for (let i = 0; i < 30; i++) await busy.spaces.create();
    await busy.records.put(shared, 'app.post', { hello: true });
    const key = (busy as unknown as { key: unknown }).key;
    await busy.close();

    // A restart: nothing is open; the index in the registry says which spaces the peer shares.
    busy = await createNode({ stores: factory, key: key as never });
    nodes.push(busy);
    counts.spaces = 0;
    connect(busy, peer);
    await converged([busy, peer], shared);
    const peers = async () => (await busy.spaces.status(shared)).peers;
    await until(async () => (await peers()).length === 1, 5000, 'the peer to share the space');
    expect(counts.spaces).toBe(1);
  });

  it('follows membership: a grant shares a space on a live connection; a removed holder is not named', async () => {
    const [owner, other] = [
      await createNode({ stores: fakeStores() }),
      await createNode({ stores: fakeStores() }),
    ];
    const host = await createNode({ stores: fakeStores(), holding: {} });
    nodes.push(owner, other, host);
    const space = await sharedSpace(owner, []);
    await owner.records.put(space, 'app.post', { n: 1 });
    const [fromOwner] = connect(owner, other);
    await until(() => fromOwner.did !== undefined);
    await owner.spaces.setRole(space, other.did, 'reader');
    await other.spaces.join(await owner.spaces.share(space, other.did));
    await converged([owner, other], space);
    expect(fromOwner.spaces()).toEqual([space]);

    await owner.spaces.allowHolder(space, host.did);
    await owner.spaces.removeHolder(space, host.did);
    const kept = await sharedSpace(owner, []);
    await owner.spaces.allowHolder(kept, host.did);
    const [toHost] = connect(owner, host);
    // Both spaces go in the one offer: once the kept one is held, the other was not named.
    await until(async () => (await host.spaces.held()).length > 0, 5000, 'the kept space held');
    expect((await host.spaces.held()).map((h) => h.id)).toEqual([kept]);
    await until(() => toHost.spaces().length > 0, 5000, 'the kept space shared');
    expect(toHost.spaces()).toEqual([kept]);
  });
});
