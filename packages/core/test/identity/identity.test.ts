/**
 * Keys by role (spec 05 §6, §7): writers tied to accounts by certificates, devices removed on
 * their own, invites that cost nobody their records, keys that change when a member leaves.
 */
import { describe, expect, it } from 'vitest';
import { issueCertificate, issueRevocation } from '../../src/identity/certificate.js';
import { SigningKey } from '../../src/keys.js';
import type { MincaNode } from '../../src/node.js';
import { TestAccount } from '../../src/testing/test-account.js';
import { keyThat } from '../scripted-peer.js';
import { connect, converged, nodeFixture, until } from '../sync-helpers.js';

const { make } = nodeFixture();

const texts = async (node: MincaNode, space: string) =>
  (await node.records.list<{ text: string }>(space, 'app.post')).map((r) => r.body.text).sort();

describe('writers of an account', () => {
  it('two devices of one account sign with their own keys and write for the account', async () => {
    const account = new TestAccount();
    const laptop = await make(await account.node());
    const phone = await make(await account.node());
    expect(laptop.did).toBe(account.did);
    expect(phone.did).toBe(account.did);
    expect(laptop.writer).not.toBe(phone.writer);

    const space = await laptop.spaces.create();
    expect(space.owner).toBe(account.did);
    // The account's other device joins with a ticket for the account itself.
    await phone.spaces.join(await laptop.spaces.share(space.id, account.did));
    const a = await laptop.records.put(space.id, 'app.post', { text: 'from the laptop' });
    connect(laptop, phone);
    await converged([laptop, phone], space.id);
    const b = await phone.records.put(space.id, 'app.post', { text: 'from the phone' });
    await converged([laptop, phone], space.id);
    expect(await texts(laptop, space.id)).toEqual(['from the laptop', 'from the phone']);
    expect(a.author).toBe(laptop.writer);
    expect(b.author).toBe(phone.writer);
  });

  it('removing a device stops its new versions from standing, on the other device and through a host', async () => {
    const account = new TestAccount();
    const laptop = await make(await account.node());
    const phoneConfig = await account.node();
    const phone = await make(phoneConfig);
    const friend = await make();
    const host = await make({ holding: {} });
    const space = await laptop.spaces.create();
    await laptop.spaces.allowHolder(space.id, host.did);
    await friend.spaces.join(await laptop.spaces.invite(space.id, { role: 'reader' }));
    await phone.spaces.join(await laptop.spaces.share(space.id, account.did));
    const [toPhone] = connect(laptop, phone);
    await phone.records.put(space.id, 'app.post', { text: 'before' });
    await converged([laptop, phone], space.id);
    toPhone.close('the phone is lost');

    // The phone is lost: the account's root revokes it, on the laptop. The phone, offline,
    // doesn't know and goes on writing.
    const revocation = await issueRevocation(account.root, phoneConfig.device!, Date.now());
    await laptop.spaces.revoke(revocation.bytes);
    await new Promise((r) => setTimeout(r, 5));
    await phone.records.put(space.id, 'app.post', { text: 'after' });

    // Everyone meets at the host, which can't judge anyone: members do.
    connect(laptop, host);
    connect(friend, host);
    connect(phone, host);
    await until(
      async () => (await texts(friend, space.id)).includes('before'),
      5000,
      'the friend to read through the host',
    );
    await until(
      async () =>
        (await host.spaces.status(space.id)).versions >
        (await laptop.spaces.status(space.id)).versions,
      5000,
      'the host to hold what the phone wrote',
    );
    await until(
      async () => (await friend.spaces.status(space.id)).collections.includes('sys.revoke'),
      5000,
      'the friend to hold the revocation',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await texts(laptop, space.id)).toEqual(['before']);
    expect(await texts(friend, space.id)).toEqual(['before']);
    // A revoked key proves itself in a handshake, but is nobody: nothing is shared with it.
    const [, phoneAtLaptop] = connect(phone, laptop);
    await until(() => phoneAtLaptop.did !== undefined, 5000, 'the handshake');
    expect(phoneAtLaptop.did).toBe(phone.writer);
    expect(phoneAtLaptop.spaces()).toEqual([]);
  });

  it('an app key limited to some spaces writes only in those', async () => {
    const account = new TestAccount();
    const home = await make(await account.node());
    const allowed = await home.spaces.create();
    const other = await home.spaces.create();
    const app = await make(await account.node({ spaces: [allowed.id] }));
    await app.spaces.join(await home.spaces.share(allowed.id, account.did));
    await app.spaces.join(await home.spaces.share(other.id, account.did));
    await app.records.put(allowed.id, 'app.post', { text: 'in the allowed space' });
    await expect(
      app.records.put(other.id, 'app.post', { text: 'elsewhere' }),
    ).rejects.toMatchObject({ code: 'not_authorized' });
    connect(home, app);
    await converged([home, app], allowed.id);
    expect(await texts(home, allowed.id)).toEqual(['in the allowed space']);
  });

  it('an app key limited to some spaces is named only those, and takes no role elsewhere by invite', async () => {
    const account = new TestAccount();
    const home = await make(await account.node());
    const allowed = await home.spaces.create();
    await home.spaces.create(); // a second space, not named in the app's key
    const app = await make(await account.node({ spaces: [allowed.id] }));
    await app.spaces.join(await home.spaces.share(allowed.id, account.did));
    const [appAtHome] = connect(home, app);
    await until(() => appAtHome.spaces().length > 0, 5000, 'the app and the home to share');
    await new Promise((r) => setTimeout(r, 100));
    expect(appAtHome.spaces()).toEqual([allowed.id]);
    // Someone else's space: an invite accepted with the app's key gives its account nothing.
    const friend = await make();
    const theirs = await friend.spaces.create();
    await expect(app.spaces.join(await friend.spaces.invite(theirs.id))).rejects.toMatchObject({
      code: 'not_authorized',
    });
    expect(await friend.spaces.members(theirs.id)).toEqual([{ did: friend.did, role: 'owner' }]);
  });

  it('a writer certified only to read writes nothing that stands, and tells who it writes for', async () => {
    const account = new TestAccount();
    const home = await make(await account.node({ device: await account.device('laptop') }));
    const space = await home.spaces.create();
    const agent = await make(await account.node({ reader: true }));
    await agent.spaces.join(await home.spaces.share(space.id, account.did));
    connect(home, agent);
    await home.records.put(space.id, 'app.post', { text: 'for the agent to read' });
    await until(async () => (await texts(agent, space.id)).length === 1, 5000, 'the agent reads');
    await expect(agent.records.put(space.id, 'app.post', { text: 'nope' })).rejects.toMatchObject({
      code: 'not_authorized',
    });
    expect(await home.spaces.writerOf(space.id, home.writer)).toEqual({
      account: account.did,
      device: expect.stringMatching(/^did:key:/),
      deviceLabel: 'laptop',
      revoked: false,
    });
    await until(
      async () => (await home.spaces.writerOf(space.id, agent.writer)).account === account.did,
      5000,
      'the agent’s writer record to reach the home',
    );
    expect(await home.spaces.writerOf(space.id, agent.writer)).toMatchObject({
      account: account.did,
      label: 'agent',
      revoked: false,
    });
    const stranger = SigningKey.generate().did;
    expect(await home.spaces.writerOf(space.id, stranger)).toEqual({
      account: stranger,
      revoked: false,
    });
  });

  it('a forged or broken chain of certificates is refused at the start', async () => {
    const account = new TestAccount();
    const { key, certificates } = await account.node();
    const stranger = SigningKey.generate();
    const forged = await issueCertificate(stranger, {
      kind: 'writer',
      subject: key!.did,
      account: account.did,
      issued: Date.now(),
    });
    await expect(
      make({ key, certificates: [certificates![0]!, forged.bytes] }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
    });
    const tampered = certificates![1]!.slice();
    tampered[tampered.length - 1]! ^= 1;
    await expect(make({ key, certificates: [certificates![0]!, tampered] })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});

describe('a device removed in a space another account owns', () => {
  it('the owner changes the key, so the removed device reads nothing written after', async () => {
    const owner = await make();
    const account = new TestAccount();
    const laptop = await make(await account.node());
    const phoneConfig = await account.node();
    const phone = await make(phoneConfig);
    const space = await owner.spaces.create();
    await owner.spaces.setRole(space.id, account.did, 'writer');
    for (const device of [laptop, phone])
      await device.spaces.join(await owner.spaces.share(space.id, account.did));
    connect(owner, laptop);
    const [phoneAtOwner] = connect(owner, phone);
    await phone.records.put(space.id, 'app.post', { text: 'from the phone' });
    await converged([owner, laptop, phone], space.id);
    phoneAtOwner.close('the phone is lost');
    // The account removes its phone; the revocation reaches the space's owner, who changes the key.
    await laptop.spaces.revoke(
      (await issueRevocation(account.root, phoneConfig.device!, laptop.time())).bytes,
    );
    await until(
      async () => (await owner.spaces.status(space.id)).collections.includes('sys.key'),
      15_000,
      'the owner to change the key',
    );
    const after = await owner.records.put(space.id, 'app.post', { text: 'after the phone' });
    await until(
      async () => (await laptop.records.get(space.id, 'app.post', after.id)) !== undefined,
      15_000,
      'the laptop to read under the new key',
    );
    // The phone meets the owner again: a revoked key is nobody there, and reads nothing new.
    const [phoneAgain] = connect(owner, phone);
    await until(() => phoneAgain.did !== undefined, 5000, 'the handshake');
    await new Promise((r) => setTimeout(r, 200));
    expect(phoneAgain.spaces()).toEqual([]);
    expect(await phone.records.get(space.id, 'app.post', after.id)).toBeUndefined();
    expect(await texts(laptop, space.id)).toEqual(['after the phone', 'from the phone']);
  });
});

describe('a lasting difference', () => {
  it('both sides report synced when a host keeps what a member refuses, the member answering', async () => {
    const account = new TestAccount();
    const owner = await make(await account.node());
    const phoneConfig = await account.node();
    const phone = await make(phoneConfig);
    const host = await make({ holding: {} });
    // The member answers the host's sessions: its DID sorts after the host's.
    const friend = await make({ key: keyThat('answers', host.writer) });
    const space = await owner.spaces.create();
    await owner.spaces.allowHolder(space.id, host.did);
    await friend.spaces.join(await owner.spaces.invite(space.id, { role: 'reader' }));
    await phone.spaces.join(await owner.spaces.share(space.id, account.did));
    await owner.spaces.revoke(
      (await issueRevocation(account.root, phoneConfig.device!, Date.now())).bytes,
    );
    await new Promise((r) => setTimeout(r, 5));
    await phone.records.put(space.id, 'app.post', { text: 'after' });
    connect(owner, host);
    connect(phone, host);
    await until(
      async () => {
        const held = await host.spaces.status(space.id).catch(() => undefined);
        return (held?.versions ?? 0) > (await owner.spaces.status(space.id)).versions;
      },
      5000,
      'the host to hold what the revoked phone wrote',
    );
    connect(friend, host);
    await until(
      async () => {
        const peers = (await friend.spaces.status(space.id)).peers;
        return peers.length === 1 && peers[0]!.synced && !peers[0]!.level;
      },
      10_000,
      'the friend, not level with the host, to report synced',
    );
    expect(await texts(friend, space.id)).toEqual([]);
  });
});

describe('invites', () => {
  it('a second person with one invite costs the first nothing, and the owner is told', async () => {
    const owner = await make();
    const ben = await make();
    const cleo = await make();
    const space = await owner.spaces.create();
    const code = await owner.spaces.invite(space.id);
    const told: unknown[] = [];
    owner.spaces.onReusedInvite((event) => told.push(event));
    await ben.spaces.join(code);
    await ben.records.put(space.id, 'app.post', { text: 'ben was here' });
    connect(owner, ben);
    await converged([owner, ben], space.id);
    // The link was forwarded: Cleo joins with it too.
    await cleo.spaces.join(code);
    await cleo.records.put(space.id, 'app.post', { text: 'cleo too' });
    connect(owner, cleo);
    await converged([owner, ben, cleo], space.id);
    for (const node of [owner, ben, cleo])
      expect(await texts(node, space.id)).toEqual(['ben was here', 'cleo too']);
    expect(await ben.records.put(space.id, 'app.post', { text: 'ben again' })).toBeTruthy();
    const status = await owner.spaces.status(space.id);
    expect(status.reusedInvites).toHaveLength(1);
    expect(status.reusedInvites[0]!.accounts).toEqual([ben.did, cleo.did]);
    await until(() => told.length === 1, 5000, 'the owner to be told');
    expect(told[0]).toMatchObject({ space: space.id, accounts: [ben.did, cleo.did] });

    // The owner removes Cleo: what she wrote stays, what she writes next does not stand.
    await owner.spaces.removeMember(space.id, cleo.did);
    await converged([owner, ben, cleo], space.id);
    await expect(
      cleo.records.put(space.id, 'app.post', { text: 'cleo later' }),
    ).rejects.toMatchObject({
      code: 'not_authorized',
    });
    await converged([owner, ben], space.id);
    expect(await texts(ben, space.id)).toEqual(['ben again', 'ben was here', 'cleo too']);
  });
});

describe('a member who leaves', () => {
  it('a member whose acceptance reaches the owner after a key change gets the new key', async () => {
    const owner = await make();
    const late = await make();
    const leaves = await make();
    const space = await owner.spaces.create();
    await owner.spaces.setRole(space.id, leaves.did, 'writer');
    await leaves.spaces.join(await owner.spaces.share(space.id, leaves.did));
    // Late accepts an invite while apart from the owner.
    await late.spaces.join(await owner.spaces.invite(space.id));
    // The key changes before the owner hears of the acceptance.
    await owner.spaces.removeMember(space.id, leaves.did);
    const after = await owner.records.put(space.id, 'app.post', { text: 'after the change' });
    connect(owner, late);
    await until(
      async () => (await late.records.get(space.id, 'app.post', after.id)) !== undefined,
      5000,
      'the late member to read under the new key',
    );
  });

  it('cannot open what is written after, while the members left read everything', async () => {
    const owner = await make();
    const stays = await make();
    const leaves = await make();
    const space = await owner.spaces.create();
    for (const node of [stays, leaves]) {
      await owner.spaces.setRole(space.id, node.did, 'writer');
      await node.spaces.join(await owner.spaces.share(space.id, node.did));
    }
    connect(owner, stays);
    connect(owner, leaves);
    await leaves.records.put(space.id, 'app.post', { text: 'old news' });
    await converged([owner, stays, leaves], space.id);
    await owner.spaces.removeMember(space.id, leaves.did);
    const secret = await owner.records.put(space.id, 'app.post', { text: 'after they left' });
    await converged([owner, stays, leaves], space.id);
    // The one who left holds the version but can't read it; those who stay read it all.
    expect(await texts(stays, space.id)).toEqual(['after they left', 'old news']);
    expect(await texts(owner, space.id)).toEqual(['after they left', 'old news']);
    expect(await leaves.records.get(space.id, 'app.post', secret.id)).toBeUndefined();
    expect(await texts(leaves, space.id)).toEqual(['old news']);
    // And what the members left write next is sealed under the new key too.
    const reply = await stays.records.put(space.id, 'app.post', { text: 'reply' });
    await converged([owner, stays, leaves], space.id);
    expect(await leaves.records.get(space.id, 'app.post', reply.id)).toBeUndefined();
    expect((await owner.records.get(space.id, 'app.post', reply.id))?.body).toEqual({
      text: 'reply',
    });
  });
});
