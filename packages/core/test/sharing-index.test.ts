import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeCbor } from '../src/encoding.js';
import { SigningKey } from '../src/keys.js';
import { openStore, REGISTRY_PATH } from '../src/node/open-store.js';
import { createNode, type MincaNode } from '../src/node.js';
import { Registry } from '../src/registry.js';
import { SharingIndex } from '../src/sharing-index.js';
import { countingOpens, fakeStores } from './fake-adapter.js';
import { connect, converged, levelIn, sharedSpace, until } from './sync-helpers.js';

const nodes: MincaNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close();
});

describe('the sharing index', () => {
  it('a handshake opens only the spaces shared with the peer, after a restart too', async () => {
    const { stores: factory, count } = countingOpens();
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
    count.opens = 0;
    connect(busy, peer);
    await converged([busy, peer], shared);
    const peers = async () => (await busy.spaces.status(shared)).peers;
    await until(async () => (await peers()).length === 1, 5000, 'the peer to share the space');
    expect(count.opens).toBe(1);
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

  it('a member meeting its host again opens none of its spaces: what it shows comes from the index', async () => {
    // More spaces than the owner keeps open: each names, credentials and proof used to open it.
    const { stores, count } = countingOpens();
    const owner = await createNode({ stores, openSpaces: { max: 2 } });
    const host = await createNode({ stores: fakeStores(), holding: {} });
    nodes.push(owner, host);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const id = await sharedSpace(owner, []);
      await owner.records.put(id, 'app.note', { i });
      await owner.spaces.allowHolder(id, host.did, 'host');
      ids.push(id);
    }
    const [first] = connect(owner, host);
    await until(() => levelIn(first, ids), 10_000, 'the first meeting');
    first.close('apart');
    count.opens = 0;
    const meetings = vi.spyOn(Registry.prototype, 'meeting');
    try {
      const [again, hostEnd] = connect(owner, host);
      await until(() => levelIn(again, ids), 10_000, 'the second meeting');
      expect(count.opens).toBe(0);
      // Named and proven: the host shares every space with the owner on this connection.
      await until(() => hostEnd.spaces().length === ids.length, 5000, 'the host sharing all six');
      expect(hostEnd.spaces().sort()).toEqual([...ids].sort());
      // Each space's entry was read once, for its credentials and its proof together.
      const reads = meetings.mock.calls.map(([id]) => id).sort();
      expect(reads).toEqual([...ids].sort());
    } finally {
      meetings.mockRestore();
    }
  });

  it('a meeting entry that does not read is read from the space again, not trusted', async () => {
    const registry = new Registry(await openStore(fakeStores(), REGISTRY_PATH));
    const account = SigningKey.generate().did;
    const holder = SigningKey.generate().did;
    const facts = {
      shown: [new Uint8Array([1, 2, 3])],
      holders: new Map([[holder, 'host' as const]]),
    };
    await registry.putMeeting('s1', account, facts);
    expect(await registry.meeting('s1', account)).toEqual(facts);
    // Indexed for another account: not this one's.
    expect(await registry.meeting('s1', SigningKey.generate().did)).toBeUndefined();
    const store = await openStore(fakeStores(), REGISTRY_PATH);
    const damaged = new Registry(store);
    for (const value of [
      new Uint8Array([0xff]),
      encodeCbor({ d: account, v: ['not bytes'], h: [] }),
      encodeCbor({ d: account, v: [], h: [[holder, 'king']] }),
    ]) {
      await store.commit({ entries: [{ key: 'meeting/s2', value }] });
      expect(await damaged.meeting('s2', account)).toBeUndefined();
    }
    // The index reads a space without an entry that reads from the space, and keeps it.
    let read = 0;
    const index = new SharingIndex(damaged, async () => [], {
      account,
      now: async () => {
        read++;
        return facts;
      },
    });
    expect(await index.meetingIn(['s2'])).toEqual([facts]);
    expect(await index.meetingIn(['s2'])).toEqual([facts]);
    expect(read).toBe(1);
  });
});
