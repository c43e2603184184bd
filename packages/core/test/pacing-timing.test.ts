// The pacing table's timing rows (product page "Pacing sync", spec 05 §10), each against a real
// node on a fake clock, the other side a scripted peer speaking the protocol by hand: heartbeat
// 30 s, hello about 100 ms after taking in, stale after 30 s (sessions and wants), a live
// session not restarted but run once more, one "records changed" per message taken in.
import { describe, expect, it } from 'vitest';
import { toHex } from '../src/bytes.js';
import type { Message } from '../src/sync/messages.js';
import { HEARTBEAT_MS, HELLO_AFTER_TAKE_IN_MS, STALE_MS } from '../src/sync/pacing.js';
import { advance, within } from './files/clock.js';
import {
  answerNeg,
  fakeItems,
  helloFrom,
  type MessageOf,
  memberPeer,
  pushingPeer,
  syncSetOf,
  versionBy,
} from './scripted-peer.js';
import { nodeFixture } from './sync-helpers.js';

const { make } = nodeFixture({ fakeClock: true });

const timesOf = (p: { received: Array<{ at: number; m: Message }> }, t: string, space: string) =>
  p.received.filter((r) => r.m.t === t && (r.m as { s?: string }).s === space).map((r) => r.at);

describe('pacing on a fake clock', () => {
  it('says hello in every shared space every 30 s, and not between', async () => {
    expect(HEARTBEAT_MS).toBe(30_000);
    const node = await make();
    const { space, p } = await memberPeer(node, 'answers');
    const linked = Date.now();
    // We never say where we stand, so the node has nothing to reconcile: only its heartbeat.
    await advance(95_000, 100);
    const at = timesOf(p, 'hello', space);
    expect(at[0]).toBeLessThanOrEqual(linked + 100); // the hello on linking
    expect(at).toHaveLength(4);
    for (let i = 2; i < at.length; i++) {
      expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(HEARTBEAT_MS - 100);
      expect(at[i]! - at[i - 1]!).toBeLessThanOrEqual(HEARTBEAT_MS + 100);
    }
  });

  it('says hello about 100 ms after taking versions in, once for several messages', async () => {
    expect(HELLO_AFTER_TAKE_IN_MS).toBe(100);
    const node = await make();
    const { key, space, spaceKey, p } = await pushingPeer(node);
    await advance(500);
    const before = timesOf(p, 'hello', space).length;
    const versions = await Promise.all(
      [1, 2, 3].map((n) => versionBy(key, spaceKey, space, 'app.post', { n })),
    );
    const sent = Date.now();
    for (const v of versions) {
      p.send({ t: 'vers', s: space, v: [v.bytes] });
      await advance(20, 10);
    }
    await within(2_000, () => timesOf(p, 'hello', space).length > before, 'the hello');
    await advance(500);
    const after = timesOf(p, 'hello', space).slice(before);
    // One hello for the three messages, about 100 ms after the first was taken in.
    expect(after).toHaveLength(1);
    expect(after[0]! - sent).toBeGreaterThanOrEqual(HELLO_AFTER_TAKE_IN_MS);
    expect(after[0]! - sent).toBeLessThan(HELLO_AFTER_TAKE_IN_MS + 200);
    expect((await node.records.list(space, 'app.post')).length).toBe(3);
  });

  it('tells listeners "records changed" once per message taken in, not once per version', async () => {
    const node = await make();
    const { key, space, spaceKey, p } = await pushingPeer(node);
    const changes: string[][] = [];
    await node.records.subscribe(space, (c) => changes.push(c.collections));
    const batch = (n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          versionBy(key, spaceKey, space, i % 2 ? 'app.post' : 'app.note', { i }),
        ),
      );
    p.send({ t: 'vers', s: space, v: (await batch(20)).map((v) => v.bytes) });
    const standing = async () =>
      (await node.records.list(space, 'app.post')).length +
      (await node.records.list(space, 'app.note')).length;
    await within(5_000, async () => (await standing()) === 20, 'the 20 versions');
    await advance(200);
    expect(changes).toHaveLength(1);
    expect(changes[0]!.sort()).toEqual(['app.note', 'app.post']);
    for (const vs of [await batch(5), await batch(7)]) {
      p.send({ t: 'vers', s: space, v: vs.map((v) => v.bytes) });
      await advance(200);
    }
    expect(changes).toHaveLength(3);
  });

  it('drops a silent session after 30 s and finds the difference again', async () => {
    expect(STALE_MS).toBe(30_000);
    const node = await make();
    const { space, p } = await memberPeer(node, 'answers'); // the node starts
    // We say we stand elsewhere, then never answer: the session waits on us.
    p.send(helloFrom(space, [['app.post', 3]]));
    await within(2_000, () => p.of('neg', space).length > 0, 'the first neg');
    const started = Date.now();
    // A live session (heard from in the last 30 s) is not started again.
    for (let t = 0; t < 25_000; t += 5_000) {
      p.send(helloFrom(space, [['app.post', 3]]));
      await advance(5_000, 100);
    }
    expect(p.of('neg', space)).toHaveLength(1);
    // Past 30 s silent it is dropped, at a heartbeat, and the difference is reconciled again.
    await within(40_000, () => p.of('neg', space).length > 1, 'a new session', 100);
    const again = Date.now() - started;
    expect(again).toBeGreaterThanOrEqual(STALE_MS);
    expect(again).toBeLessThanOrEqual(STALE_MS + HEARTBEAT_MS + 200);
    expect(p.peer.endReason).toBeUndefined();
  });

  it('drops a want unanswered for 30 s, and may ask its ids again', async () => {
    const node = await make();
    const { space, p } = await memberPeer(node, 'answers');
    const ours = syncSetOf(fakeItems(40));
    const empty = syncSetOf([]);
    p.onMessage = (m) => {
      if (m.t === 'neg') p.send(answerNeg(m.c === 'app.post' ? ours : empty, m));
    };
    p.send(helloFrom(space, [['app.post', 40]]));
    await within(5_000, () => p.of('want', space).length > 0, 'a want');
    const first = new Set(p.of('want', space).flatMap((w) => w.i.map(toHex)));
    expect(first.size).toBe(40);
    const asked = Date.now();
    // Within 30 s nothing is asked twice, however often we say hello.
    for (let t = 0; t < 25_000; t += 5_000) {
      p.send(helloFrom(space, [['app.post', 40]]));
      await advance(5_000, 100);
    }
    expect(p.of('want', space).flatMap((w) => w.i)).toHaveLength(40);
    // Once stale, the ids are found again by the next session and asked again.
    p.send(helloFrom(space, [['app.post', 40]]));
    await within(40_000, () => p.of('want', space).length > 1, 'a second want', 100);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(STALE_MS);
    const again = p
      .of('want', space)
      .slice(1)
      .flatMap((w) => w.i.map(toHex));
    expect(new Set(again)).toEqual(first);
  });

  it('does not restart a live session, but runs it once more when it ends', async () => {
    const node = await make();
    const { space, p } = await memberPeer(node, 'answers', (space) =>
      node.records.put(space, 'app.post', { n: 1 }),
    );
    const empty = syncSetOf([]);
    // Every neg is answered at once, except the first of the first session, held for 10 s.
    let held: MessageOf<'neg'> | undefined;
    p.onMessage = (m) => {
      if (m.t !== 'neg') return;
      if (p.of('neg', space).length === 1) held = m;
      else p.send(answerNeg(empty, m));
    };
    p.send(helloFrom(space, [['app.post', 0]]));
    await within(2_000, () => held !== undefined, 'the first neg');
    const first = held!.c;
    for (let i = 0; i < 3; i++) {
      await advance(3_000, 100);
      p.send(helloFrom(space, [['app.post', 0]]));
    }
    await advance(1_000, 100);
    // Still one session: nothing after the held neg.
    expect(p.of('neg', space)).toHaveLength(1);
    p.send(answerNeg(empty, held!));
    await advance(5_000, 50);
    // Sessions start at the first collection: exactly two ran, three hellos notwithstanding.
    const collections = p.of('neg', space).map((m) => m.c);
    const starts = collections.filter(
      (c, i) => c === first && (i === 0 || collections[i - 1] !== c),
    );
    expect(starts).toHaveLength(2);
    expect(new Set(collections)).toEqual(
      new Set(['app.post', ...collections.filter((c) => c.startsWith('sys.'))]),
    );
  });

  // Known broken (found by the host soak, issue 15): a reply that comes after its session was
  // dropped as stale (a host stalled past 30 s) ends the connection as "a reconciliation reply
  // nobody asked for", where the session it belonged to is simply gone. The fix belongs to the
  // split sync code; un-fail this then.
  it('takes a reply to a session dropped as stale as late, not as a broken peer', async () => {
    const node = await make();
    const { space, p } = await memberPeer(node, 'answers');
    p.send(helloFrom(space, [['app.post', 1]]));
    await within(2_000, () => p.of('neg', space).length > 0, 'the first neg');
    const late = p.of('neg', space)[0]!;
    // Silent past stale, and past the heartbeat that drops the session.
    await advance(STALE_MS + HEARTBEAT_MS + 1_000, 200);
    p.send(answerNeg(syncSetOf([]), late));
    await advance(2_000, 50);
    expect(p.peer.endReason).toBeUndefined();
    expect(p.closedWith()).toBeUndefined();
  });
});
