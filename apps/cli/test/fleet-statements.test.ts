// A fleet's records in its bucket (spec 06 §6.2): signed by a host the fleet key certified, over
// their own key; and a host's policy over them (§6.5): exact limits, file chunks counted, what
// other hosts hold counted once.
import { SigningKey } from '@minca/core';
import { TestAccount } from '@minca/core/testing';
import { createMemoryBlobStore } from '@minca/memory';
import { describe, expect, it } from 'vitest';
import { Fleet, HELD_PREFIX, HOSTS_PREFIX, SUBSCRIPTIONS_PREFIX } from '../src/host/fleet.ts';
import { type FleetSigner, readStatement, signStatement } from '../src/host/fleet-statements.ts';
import { type FleetLedger, SubscriptionPolicy } from '../src/host/subscription-policy.ts';
import type { Subscription } from '../src/host/subscriptions.ts';

async function hostOf(fleet: SigningKey): Promise<FleetSigner> {
  const { key, certificates } = await new TestAccount(fleet).node({ byRoot: true });
  return { key, chain: certificates, fleet: fleet.did };
}

const ACCOUNT = `did:key:z6Mk${'a'.repeat(44)}`;

describe('fleet statements', () => {
  it('keeps only statements signed for this fleet, over their own key', async () => {
    const fleet = SigningKey.generate();
    const host = await hostOf(fleet);
    const key = `${HELD_PREFIX}abc`;
    const body = { h: 'did:key:zAccess', o: ACCOUNT, a: 1 };
    const bytes = await signStatement(host, 'held', key, body);
    expect(await readStatement(fleet.did, 'held', key, bytes)).toEqual({
      signer: host.key.did,
      body,
    });
    // Moved to another key, read as another kind, or of another fleet: refused.
    await expect(readStatement(fleet.did, 'held', `${HELD_PREFIX}abd`, bytes)).rejects.toThrow(
      /does not verify/,
    );
    await expect(readStatement(fleet.did, 'subscription', key, bytes)).rejects.toThrow(
      /not a subscription/,
    );
    const other = SigningKey.generate();
    await expect(readStatement(other.did, 'held', key, bytes)).rejects.toThrow(
      /not by a host of this fleet/,
    );
    // A key the fleet did not certify, claiming the fleet's certificate of another host.
    const forger = { ...host, key: SigningKey.generate() };
    const forged = await signStatement(forger, 'held', key, body);
    await expect(readStatement(fleet.did, 'held', key, forged)).rejects.toThrow(/do not hold/);
    // A byte changed anywhere.
    for (const at of [10, Math.floor(bytes.length / 2), bytes.length - 3]) {
      const bad = bytes.slice();
      bad[at] = bad[at]! ^ 1;
      await expect(readStatement(fleet.did, 'held', key, bad)).rejects.toThrow();
    }
  });

  it('shares subscriptions, held spaces, hosts and usage through the bucket', async () => {
    const fleetKey = SigningKey.generate();
    const bucket = createMemoryBlobStore();
    const bad: string[] = [];
    const [a, b] = [
      new Fleet(bucket, await hostOf(fleetKey)),
      new Fleet(bucket, await hostOf(fleetKey), (k) => bad.push(k)),
    ];
    const sub: Subscription = {
      id: '0123456789abcdef',
      account: ACCOUNT,
      spaces: 2,
      bytes: 1000,
      created: 5,
    };
    await a.addSubscription(sub);
    await a.recordHeld({ space: 's1', access: 'did:key:zAccess', offeredBy: ACCOUNT, added: 7 });
    await a.announce('ws://127.0.0.1:1', 1_000);
    await a.reportUsage(new Map([['s1', 600]]));
    // A client with bucket access writes records of its own: they count for nothing.
    const stranger = await hostOf(SigningKey.generate());
    const fake = `${SUBSCRIPTIONS_PREFIX}fedcba9876543210`;
    await bucket.put(fake, await signStatement(stranger, 'subscription', fake, { ...sub }));
    const fakeHost = `${HOSTS_PREFIX}zFake`;
    await bucket.put(fakeHost, new Uint8Array([1, 2, 3]));

    await b.refresh();
    expect(b.subscriptions()).toEqual([sub]);
    expect(await b.heldRecord('s1')).toEqual({
      space: 's1',
      access: 'did:key:zAccess',
      offeredBy: ACCOUNT,
      added: 7,
    });
    expect(b.spacesHeldFor(ACCOUNT)).toEqual(['s1']);
    expect(b.bytesElsewhere('s1')).toBe(600);
    expect(b.hosts(1_000)).toEqual([{ did: a.signer.key.did, url: 'ws://127.0.0.1:1', at: 1_000 }]);
    expect(b.hosts(1_000 + 60_000)).toEqual([]);
    expect(bad.sort()).toEqual([fake, fakeHost].sort());

    // A held record written after the last listing is found on demand; a removal is seen.
    await a.recordHeld({ space: 's2', access: 'did:key:zOther', offeredBy: ACCOUNT, added: 8 });
    expect((await b.heldRecord('s2'))?.access).toBe('did:key:zOther');
    expect(await b.heldRecord('s3')).toBeUndefined();
    expect(await a.removeSubscription(sub.id)).toBe(true);
    await b.refresh();
    expect(b.subscriptions()).toEqual([]);
  });
});

describe("a host's policy over the fleet", () => {
  const subs = (list: Subscription[]) => ({
    ofAccount: async (account: string) => list.filter((s) => s.account === account),
  });
  const allow = (bytes: number, spaces = 5): Subscription => ({
    id: '0000000000000001',
    account: ACCOUNT,
    spaces,
    bytes,
    created: 0,
  });
  const offer = (bytes: number, held = 0, extra = {}) => ({
    space: 's1',
    peer: ACCOUNT,
    versions: 1,
    bytes,
    held: { versions: 0, bytes: held },
    ...extra,
  });

  it('refuses a batch that would take the account past its bytes, file chunks counted', async () => {
    const policy = new SubscriptionPolicy(subs([allow(1000)]));
    expect(await policy.acceptSpace({ space: 's1', peer: ACCOUNT, access: 'x' })).toBeUndefined();
    expect(await policy.acceptData(offer(600))).toBeUndefined();
    // 600 + 500 would pass 1,000: refused whole, though 400 would fit.
    expect(await policy.acceptData(offer(500, 600))).toMatch(/is over its 1000 B on this host/);
    expect(await policy.acceptData(offer(400, 600))).toBeUndefined();
    // Versions fill it; a file's chunks count the same.
    const file = {
      file: 'f'.repeat(64),
      versions: 0,
      held: { versions: 2, bytes: 1000, files: 0 },
    };
    expect(await policy.acceptData({ ...offer(1), ...file })).toMatch(/with these file/);
    expect(policy.usage()).toEqual(new Map([['s1', 1000]]));
  });

  it('counts the spaces and bytes other hosts hold, and keeps what a fleet peer brings', async () => {
    const ledger: FleetLedger = {
      account: 'did:key:zFleet',
      heldRecord: async () => undefined,
      spacesHeldFor: () => ['s0', 's1'],
      bytesElsewhere: (space) => (space === 's0' ? 700 : 0),
      recordHeld: async () => undefined,
    };
    const policy = new SubscriptionPolicy(subs([allow(1000, 2)]), Date.now, ledger);
    // Two spaces held elsewhere for the account: a third is refused here.
    expect(await policy.acceptSpace({ space: 's9', peer: ACCOUNT, access: 'x' })).toMatch(
      /may keep 2 space\(s\) on this host and keeps 2/,
    );
    await policy.spaceHeld({ space: 's1', access: 'x', offeredBy: ACCOUNT, added: 0 });
    // s0's 700 bytes on another host count: 400 more in s1 would pass 1,000.
    expect(await policy.acceptData(offer(400))).toMatch(/over its/);
    expect(await policy.acceptData(offer(300))).toBeUndefined();
    // What a fleet peer or the bucket brings was counted by the host that took it in: kept.
    expect(await policy.acceptData(offer(5000, 300, { peer: 'did:key:zFleet' }))).toBeUndefined();
    expect(await policy.acceptData(offer(5000, 5300, { mirror: true }))).toBeUndefined();
  });
});
