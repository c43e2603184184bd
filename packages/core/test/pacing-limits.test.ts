// The pacing table's limits (product page "Pacing sync", spec 05 §10), each against a real
// node on a fake clock, the other side a scripted peer: 4 wants in flight per peer, 64 rounds
// then that session given up, 1,000 versions waiting (the oldest go), 10,000 refusals
// remembered (a refused id is never asked again), and the order collections are reconciled in.
import { describe, expect, it } from 'vitest';
import { toHex } from '../src/bytes.js';
import { randomId } from '../src/ids.js';
import { SigningKey } from '../src/keys.js';
import { randomKey } from '../src/seal.js';
import type { Message } from '../src/sync/messages.js';
import {
  MAX_IDS_PER_WANT,
  MAX_REFUSALS,
  MAX_ROUNDS,
  MAX_WAITING,
  MAX_WANTS_IN_FLIGHT,
} from '../src/sync/pacing.js';
import { advance, within } from './files/clock.js';
import {
  answerNeg,
  fakeItems,
  helloFrom,
  keyThat,
  memberPeer,
  memberSpace,
  pushingPeer,
  type ScriptedPeer,
  scriptedPeer,
  syncSetOf,
  versionBy,
} from './scripted-peer.js';
import { nodeFixture } from './sync-helpers.js';

const { make } = nodeFixture({ fakeClock: true });

/** Answers every `neg` as a responder holding `sets[collection]` (nothing for the rest). */
function answerAll(p: ScriptedPeer, sets: Record<string, ReturnType<typeof syncSetOf>> = {}) {
  const empty = syncSetOf([]);
  p.onMessage = (m) => {
    if (m.t === 'neg') p.send(answerNeg(sets[m.c] ?? empty, m));
  };
}

const wantedIds = (p: ScriptedPeer, space: string) =>
  p.of('want', space).flatMap((w) => w.i.map(toHex));

/** The collections the node reconciled, in the order its sessions first reached them. */
const negOrder = (p: ScriptedPeer, space: string) => [
  ...new Set(p.of('neg', space).map((m) => m.c)),
];

/** A Negentropy reply no set ever agrees with: the whole range, with a random fingerprint. */
function endlessReply(space: string, collection: string): Message {
  const m = new Uint8Array(4 + 16);
  m.set([0x61, 0x00, 0x00, 0x01]); // V1, bound: infinity, no prefix; mode Fingerprint
  crypto.getRandomValues(m.subarray(4));
  return { t: 'neg', s: space, c: collection, m };
}

describe('pacing limits', () => {
  it(`keeps ${MAX_WANTS_IN_FLIGHT} wants in flight per peer; when one is answered, the next goes`, async () => {
    expect(MAX_WANTS_IN_FLIGHT).toBe(4);
    const node = await make();
    const { space, p } = await memberPeer(node, 'answers');
    const items = fakeItems(6 * MAX_IDS_PER_WANT + 10);
    answerAll(p, { 'app.post': syncSetOf(items) });
    p.send(helloFrom(space, [['app.post', items.length]]));
    await within(10_000, () => p.of('want', space).length >= 4, 'four wants', 50);
    await advance(2_000, 50);
    // Nothing answered yet: four, each of at most 256 ids, and no more.
    const wants = p.of('want', space);
    expect(wants).toHaveLength(MAX_WANTS_IN_FLIGHT);
    for (const w of wants) expect(w.i.length).toBeLessThanOrEqual(MAX_IDS_PER_WANT);
    // One answered (we hold none of them after all): exactly one more goes.
    p.send({ t: 'vers', s: space, q: wants[0]!.q, v: [] });
    await advance(1_000, 50);
    expect(p.of('want', space)).toHaveLength(MAX_WANTS_IN_FLIGHT + 1);
    // Answering each as it comes, every id is asked once in all.
    p.onMessage = (m) => {
      if (m.t === 'want') p.send({ t: 'vers', s: space, q: m.q, v: [] });
    };
    for (const w of p.of('want', space).slice(1)) p.send({ t: 'vers', s: space, q: w.q, v: [] });
    await within(10_000, () => wantedIds(p, space).length >= items.length, 'every id', 50);
    const asked = wantedIds(p, space);
    expect(new Set(asked).size).toBe(items.length);
    expect(asked).toHaveLength(items.length);
    expect(p.peer.endReason).toBeUndefined();
  });

  it(`gives up a session past ${MAX_ROUNDS} rounds, counted by the side that started`, async () => {
    expect(MAX_ROUNDS).toBe(64);
    const node = await make();
    const { space, p } = await memberPeer(node, 'answers', (space) =>
      node.records.put(space, 'app.post', { n: 1 }),
    );
    const empty = syncSetOf([]);
    p.onMessage = (m) => {
      if (m.t !== 'neg') return;
      p.send(m.c === 'app.post' ? endlessReply(space, m.c) : answerNeg(empty, m));
    };
    p.send(helloFrom(space, [['app.post', 1]]));
    await advance(5_000, 20);
    // Rounds count for the whole session, sys.* too: the first initiate, then one neg for each
    // reply fed (the next round, or the next collection's initiate), up to 64. The 65th reply
    // is not fed, and the session reaches app.post's end never.
    expect(p.of('neg', space)).toHaveLength(MAX_ROUNDS + 1);
    expect(p.of('neg', space).at(-1)!.c).toBe('app.post');
  });

  // Known broken (issue 15): past 64 rounds peer.ts throws, which ends the whole connection
  // (every space shared on it) where the page says only that session is given up. The fix
  // belongs to the split sync code; un-fail this then.
  it('past 64 rounds gives up that session only: the connection and its other spaces go on', async () => {
    const node = await make();
    const key = keyThat('answers', node.did);
    const endless = await memberSpace(node, key);
    const other = await memberSpace(node, key);
    await node.records.put(endless.space, 'app.post', { n: 1 });
    const p = await scriptedPeer(node, key, [endless.space, other.space]);
    const empty = syncSetOf([]);
    p.onMessage = (m) => {
      if (m.t !== 'neg') return;
      p.send(
        m.s === endless.space && m.c === 'app.post' ? endlessReply(m.s, m.c) : answerNeg(empty, m),
      );
    };
    p.send(helloFrom(endless.space, [['app.post', 1]]));
    await advance(5_000, 20);
    expect(p.peer.endReason).toBeUndefined();
    expect(p.closedWith()).toBeUndefined();
    // The other space still syncs on the same connection.
    const v = await versionBy(key, other.spaceKey, other.space, 'app.post', { still: 'here' });
    p.send({ t: 'vers', s: other.space, v: [v.bytes] });
    await within(
      5_000,
      async () => (await node.records.list(other.space, 'app.post')).length === 1,
      'the version',
    );
  });

  it(`keeps at most ${MAX_WAITING} versions waiting for a grant; past that the oldest go`, async () => {
    expect(MAX_WAITING).toBe(1_000);
    const node = await make();
    // We start, and start nothing: the node waits.
    const { space, spaceKey, p } = await pushingPeer(node);
    // A writer the node doesn't know yet: its versions wait, since the grant may be on its way.
    const stranger = SigningKey.generate();
    const base = Date.now();
    const versions = await Promise.all(
      Array.from({ length: MAX_WAITING + 1 }, (_, i) =>
        versionBy(
          stranger,
          spaceKey,
          space,
          'app.post',
          { i },
          { record: `w${i}`, timestamp: base + i },
        ),
      ),
    );
    p.send({ t: 'vers', s: space, v: versions.map((v) => v.bytes) });
    await advance(3_000, 50);
    expect(p.of('refuse', space)).toHaveLength(0);
    expect(await node.records.list(space, 'app.post')).toHaveLength(0);
    // The grant comes; once the session is past sys.*, what waited is taken in.
    await node.spaces.setRole(space, stranger.did, 'writer');
    p.send({
      t: 'neg',
      s: space,
      c: 'app.post',
      m: new Uint8Array([0x61, 0x00, 0x00, 0x02, 0x00]),
    });
    await within(
      10_000,
      async () => (await node.records.list(space, 'app.post')).length > 0,
      'taken in',
    );
    await advance(1_000, 50);
    const ids = new Set((await node.records.list(space, 'app.post')).map((r) => r.id));
    expect(ids.size).toBe(MAX_WAITING);
    expect(ids.has('w0')).toBe(false); // the oldest went
    expect(ids.has(`w${MAX_WAITING}`)).toBe(true);
  });

  it('never asks again for a version it refused', async () => {
    const node = await make();
    const { key, space, spaceKey, p } = await memberPeer(node, 'answers');
    const stranger = SigningKey.generate();
    const refused = await versionBy(stranger, spaceKey, space, 'app.post', { no: 1 });
    const mine = await versionBy(key, spaceKey, space, 'app.post', { yes: 1 });
    let set = syncSetOf([]);
    p.onMessage = (m) => {
      if (m.t === 'neg') p.send(answerNeg(m.c === 'app.post' ? set : syncSetOf([]), m));
      if (m.t === 'want') {
        const asked = new Set(m.i.map(toHex));
        const v = [refused, mine].filter((x) => asked.has(x.id)).map((x) => x.bytes);
        p.send({ t: 'vers', s: space, q: m.q, v });
      }
    };
    // A session past sys.*, then the stranger's version, pushed: refused, with a reason.
    p.send(helloFrom(space, [['app.post', 0]]));
    await advance(2_000, 50);
    p.send({ t: 'vers', s: space, v: [refused.bytes] });
    await within(5_000, () => p.of('refuse', space).length > 0, 'the refusal');
    expect(toHex(p.of('refuse', space)[0]!.i)).toBe(refused.id);
    // Sessions later, we hold it and a version of ours: only ours is asked for.
    set = syncSetOf([refused, mine]);
    for (let i = 0; i < 3; i++) {
      p.send(helloFrom(space, [['app.post', 2]]));
      await advance(2_000, 50);
    }
    expect(wantedIds(p, space)).toContain(mine.id);
    expect(wantedIds(p, space)).not.toContain(refused.id);
  });

  it(`remembers ${MAX_REFUSALS} refusals per peer and space; past that the oldest is forgotten`, async () => {
    expect(MAX_REFUSALS).toBe(10_000);
    const node = await make();
    const { space, p } = await memberPeer(node, 'answers');
    // We refuse 10,001 ids (the node remembers refusals both ways), then say we hold them all.
    const items = fakeItems(MAX_REFUSALS + 1);
    for (const [, id] of items) p.send({ t: 'refuse', s: space, i: id, w: 'not wanted' });
    await advance(2_000, 100);
    answerAll(p, { 'app.post': syncSetOf(items) });
    p.send(helloFrom(space, [['app.post', items.length]]));
    await within(20_000, () => p.of('want', space).length > 0, 'a want', 50);
    await advance(3_000, 50);
    // Only the first, forgotten as the oldest, is asked for.
    expect(wantedIds(p, space)).toEqual([toHex(items[0]![1])]);
  });

  it('reconciles sys.* first, sorted, then from the fewest versions held to the most', async () => {
    const node = await make();
    const key = keyThat('answers', node.did);
    const { space } = await memberSpace(node, key);
    for (const [collection, n] of [
      ['app.many', 5],
      ['app.one', 1],
      ['app.few', 3],
    ] as const)
      for (let i = 0; i < n; i++) await node.records.put(space, collection, { i });
    const p = await scriptedPeer(node, key, [space]);
    answerAll(p, { 'app.theirs': syncSetOf(fakeItems(2)) });
    p.send(helloFrom(space, [['app.theirs', 2]]));
    await advance(3_000, 50);
    const order = negOrder(p, space);
    const system = order.filter((c) => c.startsWith('sys.'));
    expect(system.length).toBeGreaterThan(0);
    expect(system).toEqual([...system].sort());
    // The node holds none of app.theirs: fewest first.
    expect(order).toEqual([...system, 'app.theirs', 'app.one', 'app.few', 'app.many']);
  });

  // Known broken (issue 15): the page says the space's own records come first, "sys.*,
  // profiles among them"; peer.ts sorts std.profile with the app collections by count. The fix
  // belongs to the split sync code; un-fail this then.
  it('reconciles profiles (std.profile) with sys.*, before the app collections', async () => {
    const node = await make();
    const key = keyThat('answers', node.did);
    const { space } = await memberSpace(node, key);
    for (let i = 0; i < 4; i++)
      await node.records.put(space, 'std.profile', { i }, { id: `p${i}` });
    await node.records.put(space, 'app.one', { i: 0 });
    const p = await scriptedPeer(node, key, [space]);
    answerAll(p);
    p.send(helloFrom(space, [['app.one', 0]]));
    await advance(3_000, 50);
    const order = negOrder(p, space);
    const system = order.filter((c) => c.startsWith('sys.'));
    expect(order).toEqual([...system, 'std.profile', 'app.one']);
  });

  it("a new device holding nothing follows, past sys.*, the peer's order", async () => {
    const node = await make();
    // The scripted peer owns the space; the node joins it holding no version at all.
    const owner = keyThat('answers', node.did);
    const space = randomId();
    await node.spaces.join({ id: space, key: randomKey(), owner: owner.did, versions: [] });
    expect((await node.spaces.status(space)).versions).toBe(0);
    const p = await scriptedPeer(node, owner, [space]);
    answerAll(p);
    p.send(
      helloFrom(space, [
        ['app.zebra', 1],
        ['sys.member', 1],
        ['app.alpha', 900],
        ['app.middle', 4],
      ]),
    );
    await advance(3_000, 50);
    expect(negOrder(p, space)).toEqual(['sys.member', 'app.zebra', 'app.alpha', 'app.middle']);
  });
});
