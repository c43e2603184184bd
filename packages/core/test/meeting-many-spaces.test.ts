// Meeting a peer again with more spaces than may be open at once (spec 06 §4.1): what a
// connection reads of each space it is read in one go, so no space is opened twice for it.
import { describe, expect, it } from 'vitest';
import { randomId } from '../src/ids.js';
import { SigningKey } from '../src/keys.js';
import { Holding } from '../src/node/holding.js';
import type { OpenSpaces } from '../src/node/open-spaces.js';
import { openStore, REGISTRY_PATH } from '../src/node/open-store.js';
import type { MincaNode } from '../src/node.js';
import { Registry } from '../src/registry.js';
import { ConnectionBudget } from '../src/sync/budget.js';
import {
  decodeMessage,
  encodeMessage,
  MAX_FRAME_BYTES,
  type Message,
} from '../src/sync/messages.js';
import type { Peer } from '../src/sync/peer.js';
import { type OfferChannel, SpaceOffers } from '../src/sync/space-offers.js';
import type { SyncHost } from '../src/sync/sync-host.js';
import { countingOpens, fakeStores } from './fake-adapter.js';
import { connect, levelIn, nodeFixture, until } from './sync-helpers.js';

const { make } = nodeFixture();

/** A connection's side of an offer, whose messages go to `sent`. */
/** The peer's account, as an offer's channel names it. */
const PEER = SigningKey.generate().did;
const channelTo = (sent: Message[]): OfferChannel => ({
  peer: PEER,
  peerWriter: SigningKey.generate().did,
  nonce: new Uint8Array(16),
  peerNonce: new Uint8Array(16).fill(1),
  send: (m) => sent.push(m),
  link: async () => undefined,
  linked: 0,
  budget: new ConnectionBudget(() => 0),
});

/** `count` spaces `owner` creates, `records` in each (1 unless given), and lets `host` hold. */
async function spacesHeldBy(
  owner: MincaNode,
  host: MincaNode,
  count: number,
  records = 1,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { id } = await owner.spaces.create();
    const items = Array.from({ length: records }, (_, j) => ({ body: { i, j } }));
    await owner.records.putMany(id, 'app.note', items, { perSignature: 64 });
    await owner.spaces.allowHolder(id, host.did, 'host');
    ids.push(id);
  }
  return ids;
}

/** Expects `host` to hold each space of `ids` at the fingerprint `owner` has there. */
async function expectHeldAsOwned(host: MincaNode, owner: MincaNode, ids: readonly string[]) {
  const held = new Map((await host.spaces.held()).map((h) => [h.id, h.fingerprint]));
  for (const id of ids) expect(held.get(id)).toBe((await owner.spaces.status(id)).fingerprint);
}

/** Two keys, the one whose node starts reconciling (the smaller writer DID) first. */
function starterFirst(): [SigningKey, SigningKey] {
  const [a, b] = [SigningKey.generate(), SigningKey.generate()];
  return a.did < b.did ? [a, b] : [b, a];
}

describe('meeting a peer with many spaces', () => {
  it("reads every space's credentials in one go, then each space's access key once", async () => {
    const ids = Array.from({ length: 600 }, () => randomId());
    const access = SigningKey.generate();
    /** What the offer asked of its host, in order. */
    const asked: Array<{ credentials: readonly string[] } | { key: string }> = [];
    const host = {
      did: SigningKey.generate().did,
      spacesFor: async () => ids,
      offerFacts: async (spaces: readonly string[], did: string) => {
        expect(did).toBe(PEER);
        asked.push({ credentials: spaces });
        return spaces.map((id) => ({
          shown: [],
          accessKey: async () => {
            asked.push({ key: id });
            return access;
          },
        }));
      },
    } as unknown as SyncHost;
    const sent: Message[] = [];
    await new SpaceOffers(host, channelTo(sent)).offer();

    // Every space named and proven, in one message.
    expect(sent).toHaveLength(1);
    const [offer] = sent as Array<Extract<Message, { t: 'spaces' }>>;
    expect(offer!.s).toEqual(ids);
    expect(offer!.p?.map(([space]) => space)).toEqual(ids);
    // The facts read once for all (the node lists its keyed spaces once an offer, not once a
    // part), and each space's key once.
    expect(asked).toEqual([{ credentials: ids }, ...ids.map((key) => ({ key }))]);
  });

  it('an offer of 10,000 spaces with proofs and probes fits a frame, with the credentials that fit', async () => {
    const ids = Array.from({ length: 10_000 }, () => randomId());
    const probed = Array.from({ length: 10_000 }, () => randomId());
    const access = SigningKey.generate();
    // A credential as large as one gets: 256 of them would take the offer past 2 MiB.
    const credential = new Uint8Array(600).fill(1);
    const host = {
      did: SigningKey.generate().did,
      spacesFor: async () => ids,
      offerFacts: async (spaces: readonly string[]) =>
        spaces.map(() => ({ shown: [credential], accessKey: async () => access })),
      probeKeys: async () => probed.map((id) => [id, new Uint8Array(32).fill(7)]),
    } as unknown as SyncHost;
    const sent: Message[] = [];
    await new SpaceOffers(host, channelTo(sent)).offer();
    expect(sent).toHaveLength(1);
    const offer = sent[0] as Extract<Message, { t: 'spaces' }>;
    expect(offer.s).toHaveLength(10_000);
    expect(offer.p).toHaveLength(10_000);
    expect(offer.m).toHaveLength(10_000);
    // As many credentials as the frame has room for: some, not all 256.
    expect(offer.a!.length).toBeGreaterThan(100);
    expect(offer.a!.length).toBeLessThan(256);
    const frame = encodeMessage(offer);
    expect(frame.length).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    expect(decodeMessage(frame)).toEqual(offer);
  });

  it('derives the probe keys of only the spaces it neither names nor probed', async () => {
    const named = Array.from({ length: 50 }, () => randomId());
    const unnamed = [randomId(), randomId()];
    /** The spaces whose probe keys the host was asked to derive. */
    const derived: string[][] = [];
    const host = {
      did: SigningKey.generate().did,
      spacesFor: async () => named,
      offerFacts: async (part: readonly string[]) => part.map(() => ({ shown: [] })),
      probeKeys: async (wanted?: (space: string) => boolean) => {
        const ids = [...named, ...unnamed].filter((id) => !wanted || wanted(id));
        derived.push(ids);
        return ids.map((id) => [id, new Uint8Array(32).fill(7)]);
      },
    } as unknown as SyncHost;
    const sent: Message[] = [];
    const offers = new SpaceOffers(host, channelTo(sent));
    await offers.offer();
    expect(derived).toEqual([unnamed]);
    const [first] = sent as Array<Extract<Message, { t: 'spaces' }>>;
    expect(first!.s).toEqual(named);
    expect(first!.m).toHaveLength(2);
    // Offered again, nothing new: no key is derived, and nothing is sent.
    await offers.offer();
    expect(derived).toEqual([unnamed, []]);
    expect(sent).toHaveLength(1);
  });

  it('a holder taking an offer opens the spaces it starts holding, not those it held already', async () => {
    const registry = new Registry(await openStore(fakeStores(), REGISTRY_PATH));
    const opened: string[] = [];
    const spaces = {
      viewForPeer: async (id: string) => {
        opened.push(id);
      },
    } as unknown as OpenSpaces;
    const started: string[] = [];
    const holding = new Holding(
      registry,
      spaces,
      { spaceHeld: async ({ space }) => void started.push(space) },
      () => 1,
    );
    const peer = SigningKey.generate().did;
    const offer = (space: string) => ({
      space,
      access: `access of ${space}`,
      verify: async () => true,
    });
    const [a, b, c] = [randomId(), randomId(), randomId()];

    expect(await holding.admit(peer, [offer(a), offer(b)])).toEqual({
      admitted: [a, b],
      refused: [],
    });
    expect(opened).toEqual([a, b]);
    // The peer meets it again, offering one more: only that one opens; the rest open when the
    // peer's sync asks for them.
    opened.length = 0;
    expect(await holding.admit(peer, [offer(a), offer(b), offer(c)])).toEqual({
      admitted: [a, b, c],
      refused: [],
    });
    expect(opened).toEqual([c]);
    expect(started).toEqual([a, b, c]);
    expect((await registry.heldIds()).sort()).toEqual([a, b, c].sort());
  });

  it('says hello in a space closed here without opening it, and opens one the peer differs in', async () => {
    // The host closes a space idle for 300 ms; its stores count how often one opens.
    const { stores: counted, count } = countingOpens();
    const host = await make({ stores: counted, holding: {}, openSpaces: { idleMs: 300 } });
    const owner = await make();
    const ids = await spacesHeldBy(owner, host, 6);
    // Level in every space: the host's hello there has the owner's fingerprint.
    const level = (peer: Peer) => () => levelIn(peer, ids);
    const [first] = connect(owner, host);
    await until(level(first), 10_000, 'the first meeting');
    first.close('apart');
    await until(() => host.spaces.stats().open === 0, 10_000, 'the host closing every space');
    // One space changes while they are apart.
    await owner.records.put(ids[0]!, 'app.note', { while: 'apart' });
    count.opens = 0;
    const [again] = connect(owner, host);
    await until(level(again), 10_000, 'the second meeting');
    // The space that changed opened to take the write in; the rest said hello as they closed.
    expect(count.opens).toBe(1);
    await expectHeldAsOwned(host, owner, ids);
  });

  it('a host keeping 2 spaces open takes in 12 new ones at once within seconds, not heartbeats', async () => {
    // The host starts the sessions: a cut one starts again at once.
    const [hostKey, ownerKey] = starterFirst();
    const host = await make({ key: hostKey, holding: {}, openSpaces: { max: 2 } });
    const owner = await make({ key: ownerKey });
    const ids = await spacesHeldBy(owner, host, 12);
    const prints = new Map<string, string>();
    for (const id of ids) prints.set(id, (await owner.spaces.status(id)).fingerprint);
    const [peer] = connect(owner, host);
    // Well within the 30 s heartbeat, which was all that started a cut session again.
    await until(
      async () => {
        const held = await host.spaces.held();
        return ids.every((id) => held.some((h) => h.id === id && h.fingerprint === prints.get(id)));
      },
      8_000,
      'the host holding all 12',
    );
    await until(() => levelIn(peer, ids), 8_000, 'level');
  });

  it('a host keeping 4 spaces open takes in 12 of 2,000 versions, 2 sessions at a time', async () => {
    // Each space needs pages pulled one after another. With a session in every space at once,
    // each was cut as its space closed to make room for the next, and started again from its
    // first page: it never ended.
    const [hostKey, ownerKey] = starterFirst();
    const host = await make({ key: hostKey, holding: {}, openSpaces: { max: 4 } });
    const owner = await make({ key: ownerKey });
    const ids = await spacesHeldBy(owner, host, 12, 2_000);
    const [peer] = connect(owner, host);
    let mostRunning = 0;
    let mostWaiting = 0;
    await until(
      () => {
        const { sessions } = host.spaces.stats();
        mostRunning = Math.max(mostRunning, sessions.running);
        mostWaiting = Math.max(mostWaiting, sessions.waiting);
        return levelIn(peer, ids);
      },
      30_000,
      'level in all 12',
    );
    // Level seen from the owner's side can come before the host's last session ends (a pulled
    // collection is reconciled once more): every slot is given back once they have.
    const idle = () => host.spaces.stats().sessions.running === 0;
    await until(idle, 10_000, 'every session slot given back');
    expect(host.spaces.stats().sessions).toEqual({ running: 0, waiting: 0, max: 2 });
    expect(mostRunning).toBeGreaterThan(0);
    expect(mostRunning).toBeLessThanOrEqual(2);
    expect(mostWaiting).toBeGreaterThan(0);
    await expectHeldAsOwned(host, owner, ids);
  }, 60_000);

  it('opens each space changed while apart once on a host keeping 2 open, which starts', async () => {
    // A hello in a space closed here that differs from where it closed: with no session slot
    // free, the side that starts waits for one without opening the space for the hello; and a
    // space that closed after taking versions in says hello as it closed.
    const [hostKey, ownerKey] = starterFirst();
    const { stores: counted, count } = countingOpens();
    const host = await make({
      key: hostKey,
      stores: counted,
      holding: {},
      openSpaces: { max: 2 },
    });
    const owner = await make({ key: ownerKey });
    const ids = await spacesHeldBy(owner, host, 8);
    const level = (peer: Peer) => () => levelIn(peer, ids);
    const [first] = connect(owner, host);
    await until(level(first), 10_000, 'the first meeting');
    first.close('apart');
    for (const id of ids) await owner.records.put(id, 'app.note', { while: 'apart' });
    count.opens = 0;
    const [again] = connect(owner, host);
    await until(level(again), 10_000, 'the second meeting');
    expect(count.opens).toBe(ids.length);
  });
});
