// Holders of one account (a fleet of hosts, spec 06 §6), refusals named per space on the wire,
// a space known elsewhere held under its record, and file chunks counted by a holder's policy.
import { describe, expect, it } from 'vitest';
import type { StoreFactory } from '../src/adapter.js';
import { encodeCbor } from '../src/encoding.js';
import type { DataOffer, HoldingPolicy } from '../src/hosting/holding-policy.js';
import { SigningKey } from '../src/keys.js';
import { createNode, type MincaNode } from '../src/node.js';
import { createMemoryTransportPair } from '../src/sync/memory-transport.js';
import { decodeMessage, MAX_REFUSALS } from '../src/sync/messages.js';
import { TestAccount } from '../src/testing/test-account.js';
import { fakeStores } from './fake-adapter.js';
import { connect, converged, nodeFixture, sharedSpace, until } from './sync-helpers.js';

const { nodes, make } = nodeFixture();

/** A holder whose key the fleet's key certified: its account is the fleet's. */
async function fleetHost(
  fleet: SigningKey,
  holding: HoldingPolicy = {},
  stores: StoreFactory = fakeStores(),
): Promise<MincaNode> {
  const keys = await new TestAccount(fleet).node({ byRoot: true });
  const host = await createNode({
    stores,
    ...keys,
    holding,
    fetchFiles: 'all',
  });
  nodes.push(host);
  return host;
}

const heldIds = async (node: MincaNode) => (await node.spaces.held()).map((h) => h.id).sort();

describe('a fleet: holders of one account', () => {
  it('share the spaces both hold, so a write at one reaches the clients of the other', async () => {
    const fleet = SigningKey.generate();
    const [a, b] = [await fleetHost(fleet), await fleetHost(fleet)];
    expect(a.did).toBe(fleet.did);
    const [owner, member] = [await make(), await make()];
    const space = await sharedSpace(owner, [member]);
    const other = (await owner.spaces.create()).id;
    // The owner lets the fleet hold the spaces: every host of it proves that DID.
    await owner.spaces.allowHolder(space, fleet.did, 'host');
    await owner.spaces.allowHolder(other, fleet.did, 'host');
    const [toMember] = connect(owner, member);
    await converged([owner, member], space);
    toMember.close('parting');

    connect(owner, a);
    connect(member, b);
    await until(async () => (await heldIds(a)).length === 2, 5000, 'a to hold both');
    await until(async () => (await heldIds(b)).includes(space), 5000, 'b to hold the space');
    // The hosts connect after both hold the space; the owner's write reaches the member
    // through a and b, never meeting it.
    const [ab] = connect(a, b);
    await until(() => ab.spaces().includes(space), 5000, 'the hosts to share the space');
    const record = await owner.records.put(space, 'app.post', { via: 'the fleet' });
    await until(
      async () => (await member.records.get(space, 'app.post', record.id)) !== undefined,
      5000,
      'the write to reach the member',
    );
    // b holds only what one of its own peers brought: the other space stays on a alone.
    expect(ab.spaces()).toEqual([space]);
    expect(await heldIds(b)).toEqual([space]);
  });

  it('names a space held later to the fleet peers already connected', async () => {
    const fleet = SigningKey.generate();
    const [a, b] = [await fleetHost(fleet), await fleetHost(fleet)];
    const [ab] = connect(a, b);
    await until(() => ab.did !== undefined, 5000, 'the hosts to connect');
    const [owner, member] = [await make(), await make()];
    const space = await sharedSpace(owner, [member]);
    await owner.spaces.allowHolder(space, fleet.did, 'host');
    const [toMember] = connect(owner, member);
    await converged([owner, member], space);
    toMember.close('parting');
    connect(member, b);
    connect(owner, a);
    await until(() => ab.spaces().includes(space), 5000, 'the hosts to share the space');
    const record = await member.records.put(space, 'app.post', { from: 'b' });
    await until(
      async () => (await owner.records.get(space, 'app.post', record.id)) !== undefined,
      5000,
      'the write to reach the owner',
    );
  });

  it('records many spaces taken in at once in one commit, and names them to its fleet peer in one message', async () => {
    const fleet = SigningKey.generate();
    // The commits of a's registry that record spaces held.
    let heldCommits = 0;
    const inner = fakeStores();
    const counted: StoreFactory = {
      open: async (path) => {
        const store = await inner.open(path);
        if (path !== 'registry') return store;
        return {
          ...store,
          batch: (writes) => {
            if (writes.some((w) => w.key.startsWith('held/'))) heldCommits++;
            return store.batch(writes);
          },
        };
      },
    };
    const [a, b] = [await fleetHost(fleet, {}, counted), await fleetHost(fleet)];
    // What a sends b, read off the wire.
    const [ta, tb] = createMemoryTransportPair();
    const named: string[][] = [];
    const send = ta.send.bind(ta);
    ta.send = (frame) => {
      const m = decodeMessage(frame);
      if (m.t === 'spaces') named.push(m.s);
      send(frame);
    };
    const [ab] = [a.connect(ta), b.connect(tb)];
    await until(() => ab.did !== undefined, 5000, 'the hosts to connect');
    const owner = await make();
    const spaces: string[] = [];
    for (let i = 0; i < 200; i++) {
      const { id } = await owner.spaces.create();
      await owner.spaces.allowHolder(id, fleet.did, 'host');
      spaces.push(id);
    }
    const before = named.length;
    connect(owner, a);
    await until(
      () => spaces.every((id) => named.some((s) => s.includes(id))),
      10_000,
      'every space named to b',
    );
    // Each named once; the spaces of one offer are named together (it was dozens of offers,
    // each going over every space held, and more the slower the spaces opened).
    expect(named.flat().filter((id) => spaces.includes(id))).toHaveLength(200);
    expect(named.length - before).toBeLessThanOrEqual(2);
    expect(heldCommits).toBeLessThanOrEqual(2);
  });

  it('a holder of its own account shares nothing held with another account', async () => {
    const [fleet, stranger] = [SigningKey.generate(), SigningKey.generate()];
    const [a, b] = [await fleetHost(fleet), await fleetHost(stranger)];
    const owner = await make();
    const space = (await owner.spaces.create()).id;
    await owner.spaces.allowHolder(space, fleet.did, 'host');
    await owner.spaces.allowHolder(space, stranger.did, 'host');
    connect(owner, a);
    connect(owner, b);
    await until(async () => (await heldIds(a)).length === 1 && (await heldIds(b)).length === 1);
    const [ab, ba] = connect(a, b);
    await until(() => ab.did !== undefined && ba.did !== undefined, 5000, 'the hosts to meet');
    await new Promise((r) => setTimeout(r, 300));
    expect(ab.spaces()).toEqual([]);
    expect(ba.spaces()).toEqual([]);
  });
});

describe('holding: refusals, records from elsewhere, files', () => {
  it('tells the member why each refused space was refused, all refused or some', async () => {
    const owner = await make();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await owner.spaces.create()).id);
    const allowed = ids[0]!;
    const reasons = new Map([
      [ids[1]!, 'no room for the second'],
      [ids[2]!, 'no room for the third'],
    ]);
    const host = await make({
      holding: { acceptSpace: ({ space }) => reasons.get(space) },
    });
    for (const id of ids) await owner.spaces.allowHolder(id, host.did, 'host');
    const [toHost] = connect(owner, host);
    await until(() => toHost.refusedSpaces().size === 2, 5000, 'both refusals');
    expect(new Map(toHost.refusedSpaces())).toEqual(reasons);
    await until(() => toHost.spaces().includes(allowed), 5000, 'the allowed space');

    // Every space refused: each reason arrives before the host says goodbye.
    const other = await make();
    const lone = [(await other.spaces.create()).id, (await other.spaces.create()).id];
    const refuser = await make({ holding: { acceptSpace: ({ space }) => `not ${space}` } });
    for (const id of lone) await other.spaces.allowHolder(id, refuser.did, 'host');
    const [toRefuser] = connect(other, refuser);
    await until(() => toRefuser.endReason !== undefined, 5000, 'the goodbye');
    expect(toRefuser.endReason).toMatch(/refused: not /);
    expect(new Map(toRefuser.refusedSpaces())).toEqual(
      new Map(lone.map((id) => [id, `not ${id}`])),
    );
  });

  it('decodes spaces.r strictly: bounded, a space id and a reason each', () => {
    const space = 'a'.repeat(26);
    const frame = (r: unknown) => encodeCbor({ t: 'spaces', s: [], r });
    expect(decodeMessage(frame([[space, 'full']]))).toEqual({
      t: 'spaces',
      s: [],
      r: [[space, 'full']],
    });
    for (const bad of [
      [[space, 'x'.repeat(301)]],
      [['not a space', 'full']],
      [[space]],
      [[space, 7]],
      Array.from({ length: MAX_REFUSALS + 1 }, () => [space, 'full']),
    ])
      expect(() => decodeMessage(frame(bad))).toThrow(/bad message/);
  });

  it('holds a space known elsewhere under its record, and refuses another access key', async () => {
    const [owner, first] = [await make(), await make({ holding: {} })];
    const space = (await owner.spaces.create()).id;
    await owner.spaces.allowHolder(space, first.did, 'host');
    connect(owner, first);
    await until(async () => (await first.spaces.held()).length === 1, 5000, 'the first holder');
    const [record] = await first.spaces.held();
    const told: string[] = [];
    let asked = 0;
    const policy: HoldingPolicy = {
      heldElsewhere: (id) =>
        id === space
          ? { space, access: record!.access, offeredBy: 'did:key:zSomeAccount', added: 5 }
          : undefined,
      acceptSpace: () => {
        asked++;
        return 'never asked for a space held elsewhere';
      },
      spaceHeld: (r) => void told.push(r.space),
    };
    const second = await make({ holding: policy });
    await owner.spaces.allowHolder(space, second.did, 'host');
    connect(owner, second);
    await until(async () => (await second.spaces.held()).length === 1, 5000, 'the second holder');
    expect(await second.spaces.held()).toMatchObject([
      { id: space, access: record!.access, offeredBy: 'did:key:zSomeAccount', added: 5 },
    ]);
    expect(asked).toBe(0);
    expect(told).toEqual([space]);

    // A record naming another access DID: the proof does not match it, the space is refused.
    const third = await make({
      holding: {
        heldElsewhere: () => ({
          space,
          access: SigningKey.generate().did,
          offeredBy: owner.did,
          added: 1,
        }),
      },
    });
    await owner.spaces.allowHolder(space, third.did, 'host');
    const [toThird] = connect(owner, third);
    await until(() => toThird.refusedSpaces().has(space), 5000, 'the refusal');
    expect(toThird.refusedSpaces().get(space)).toMatch(/another access key/);
    expect(await third.spaces.held()).toEqual([]);
  });

  it("counts a file's sealed chunks against the policy before fetching them", async () => {
    const offers: DataOffer[] = [];
    let allowFiles = false;
    const host = await make({
      fetchFiles: 'all',
      holding: {
        acceptData: (offer) => {
          offers.push(offer);
          return offer.file && !allowFiles ? 'files are over the limit' : undefined;
        },
      },
    });
    const owner = await make();
    const space = (await owner.spaces.create()).id;
    await owner.spaces.allowHolder(space, host.did, 'host');
    const bytes = new Uint8Array(600_000).map((_, i) => i % 253);
    const ref = await owner.records.addFile(space, bytes);
    await owner.records.put(space, 'app.post', { ref });
    connect(owner, host);
    await until(() => offers.some((o) => o.file === ref.$file), 10_000, 'the file offer');
    const offer = offers.find((o) => o.file === ref.$file)!;
    // Three chunks, each sealed with 40 bytes more.
    expect(offer).toMatchObject({ space, versions: 0, bytes: 600_000 + 3 * 40 });
    expect(offer.held.files).toBe(0);
    expect(await host.files.whole(space)).toEqual([]);
    expect(await host.files.bytes(space)).toBe(0);

    allowFiles = true;
    await owner.records.put(space, 'app.post', { again: true });
    await until(
      async () => (await host.files.whole(space)).includes(ref.$file),
      15_000,
      'the file, once allowed',
    );
    expect(await host.files.bytes(space)).toBe(600_000 + 3 * 40);
    // The list of spaces held counts them too, in the same pass as the versions.
    const held = (await host.spaces.held()).find((h) => h.id === space);
    expect(held?.files).toBe(600_000 + 3 * 40);
    expect(held?.fingerprint).toBe((await host.spaces.status(space)).fingerprint);
  });
});
