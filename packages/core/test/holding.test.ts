import { describe, expect, it } from 'vitest';
import type { HoldingPolicy } from '../src/hosting/holding-policy.js';
import { createNode, type MincaNode } from '../src/node.js';
import { randomKey } from '../src/seal.js';
import { fakeStores } from './fake-adapter.js';
import {
  connect,
  converged,
  fingerprint,
  nodeFixture,
  sharedSpace,
  until,
} from './sync-helpers.js';

const { nodes, make: node } = nodeFixture();
const make = (holding?: HoldingPolicy) => node(holding ? { holding } : {});
/** Waits until `host` holds `space`, then until it has what `members` have. */
async function hosted(host: MincaNode, members: MincaNode[], space: string) {
  await until(async () => (await host.spaces.held()).some((h) => h.id === space), 5000, 'held');
  await converged([...members, host], space);
}

describe('hosts and carriers hold ciphertext without the space key', () => {
  it('a host keeps and serves a space it cannot read, between members never connected', async () => {
    const [owner, member, host] = [await make(), await make(), await make({})];
    const space = await sharedSpace(owner, [member]);
    await owner.spaces.allowHolder(space, host.did, 'host');
    // The member learns who may hold the space from the space itself, then they part.
    const [toMember] = connect(owner, member);
    await converged([owner, member], space);
    toMember.close('parting');
    for (let i = 0; i < 40; i++) await owner.records.put(space, 'app.post', { i });

    const [toHost] = connect(owner, host);
    await hosted(host, [owner], space);
    expect(await host.spaces.held()).toMatchObject([{ id: space, offeredBy: owner.did }]);
    // It holds the versions, not the records: nothing reads without the key.
    await expect(host.records.list(space, 'app.post')).rejects.toMatchObject({
      code: 'unknown_space',
    });
    toHost.close('owner goes offline');

    // The member meets only the host, and gets everything; its own write comes back the same way.
    connect(member, host);
    await hosted(host, [member], space);
    expect(await member.records.list(space, 'app.post')).toHaveLength(40);
    const reply = await member.records.put(space, 'app.note', { hi: 'owner' });
    await converged([member, host], space);
    connect(owner, host);
    await until(async () => (await owner.records.get(space, 'app.note', reply.id)) !== undefined);
    await converged([owner, member, host], space);
  });

  it('a host with fetchFiles "all" keeps files it cannot open, and serves them', async () => {
    const [owner, member] = [await make(), await make()];
    const host = await createNode({ stores: fakeStores(), holding: {}, fetchFiles: 'all' });
    nodes.push(host);
    const space = await sharedSpace(owner, [member]);
    await owner.spaces.allowHolder(space, host.did);
    const [toMember] = connect(owner, member);
    await converged([owner, member], space);
    toMember.close('parting');
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7) % 251);
    const ref = await owner.records.addFile(space, bytes, { mime: 'application/octet-stream' });
    await owner.records.put(space, 'app.post', { ref });

    const [toHost] = connect(owner, host);
    await hosted(host, [owner], space);
    await until(
      async () => (await host.files.whole(space)).includes(ref.$file),
      15_000,
      'the file',
    );
    toHost.close('owner goes offline');

    connect(member, host);
    await hosted(host, [member], space);
    const back = await member.records.readFile(space, ref);
    expect(Buffer.from(back).equals(Buffer.from(bytes))).toBe(true);
  });

  it('names a space only to holders the owner allows', async () => {
    const [owner, host] = [await make(), await make({})];
    const space = await sharedSpace(owner, []);
    await owner.records.put(space, 'app.post', { secret: true });
    const [ownerSide, hostSide] = connect(owner, host);
    await until(() => hostSide.did !== undefined && ownerSide.did !== undefined);
    await new Promise((r) => setTimeout(r, 300));
    expect(await host.spaces.held()).toEqual([]);
    expect(hostSide.spaces()).toEqual([]);

    // Allowed now: the owner names it on the same connection.
    await owner.spaces.allowHolder(space, host.did);
    await hosted(host, [owner], space);
    expect(await host.spaces.held()).toHaveLength(1);
  });

  it('lets in only peers that prove the space: a wrong space key is refused, nothing changes', async () => {
    const [owner, host, impostor] = [await make(), await make({}), await make()];
    const space = await sharedSpace(owner, []);
    await owner.spaces.allowHolder(space, host.did);
    await owner.records.put(space, 'app.post', { real: true });
    connect(owner, host);
    await hosted(host, [owner], space);
    const before = await fingerprint(host, space);

    // The impostor knows the id, not the key: it makes its own space of that id and offers it.
    await impostor.spaces.join({ id: space, key: randomKey(), owner: impostor.did, versions: [] });
    await impostor.spaces.allowHolder(space, host.did);
    await impostor.records.put(space, 'app.post', { fake: true });
    const [fromImpostor] = connect(impostor, host);
    await until(() => fromImpostor.endReason !== undefined, 5000, 'the impostor to be cut off');
    expect(fromImpostor.endReason).toMatch(/another access key/);
    expect(await fingerprint(host, space)).toBe(before);
  });

  it('a policy refuses a space, or new data past a limit, with a reason, and keeps what it has', async () => {
    let limit = Number.POSITIVE_INFINITY;
    let refusals = 0;
    const host = await make({
      acceptSpace: ({ peer }) => (peer === blocked?.did ? 'no subscription' : undefined),
      acceptData: ({ held, bytes }) => {
        if (held.bytes + bytes <= limit) return undefined;
        refusals++;
        return `over the subscription's ${limit} bytes`;
      },
    });
    let blocked: MincaNode | undefined;
    const [owner, other] = [await make(), await make()];
    blocked = other;
    const refusedSpace = await sharedSpace(other, []);
    await other.spaces.allowHolder(refusedSpace, host.did);
    const [fromOther] = connect(other, host);
    await until(() => fromOther.endReason !== undefined, 5000, 'the refusal');
    expect(fromOther.endReason).toMatch(/no subscription/);
    expect(await host.spaces.held()).toEqual([]);

    const space = await sharedSpace(owner, []);
    await owner.spaces.allowHolder(space, host.did);
    for (let i = 0; i < 10; i++) await owner.records.put(space, 'app.post', { i });
    connect(owner, host);
    await hosted(host, [owner], space);
    const [held] = await host.spaces.held();
    limit = held!.bytes; // full: new data is refused from here on
    const late = await owner.records.put(space, 'app.post', { late: true });
    await until(() => refusals > 0, 5000, 'the refusal');
    const after = (await host.spaces.held())[0]!;
    expect(after.versions).toBe(held!.versions);
    expect(after.bytes).toBe(held!.bytes);
    expect((await host.spaces.status(space)).fingerprint).not.toBe(await fingerprint(owner, space));
    expect(late.id).toBeTruthy();
  });

  it('releases a space: forgotten, and offered again it is asked of the policy anew', async () => {
    let offers = 0;
    const host = await make({
      acceptSpace: () => {
        offers++;
        return undefined;
      },
    });
    const owner = await make();
    const space = await sharedSpace(owner, []);
    await owner.spaces.allowHolder(space, host.did);
    const [first] = connect(owner, host);
    await hosted(host, [owner], space);
    await host.spaces.release(space);
    expect(await host.spaces.held()).toEqual([]);
    await expect(host.spaces.release(space)).rejects.toMatchObject({ code: 'unknown_space' });
    first.close('again');
    connect(owner, host);
    await hosted(host, [owner], space);
    expect(offers).toBe(2);
  });
});
