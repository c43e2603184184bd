// Pulling a whole collection (spec 05 §8 "Pulling"), against a real node, the other side a
// scripted peer: the node answers a pull a page at a time in its sync set's order, past the
// cursor; a node that starts holding none of a collection pulls it from a peer that says it
// answers pulls, then reconciles it; a cursor of the wrong size ends the connection.
import { describe, expect, it } from 'vitest';
import { compareBytes, fromHex, toHex } from '../src/bytes.js';
import { randomId } from '../src/ids.js';
import { randomKey } from '../src/seal.js';
import { cursorOf } from '../src/sync/collection-pull.js';
import { decodeVersion, type Version } from '../src/version.js';
import {
  answerNeg,
  helloFrom,
  keyThat,
  type MessageOf,
  memberPeer,
  memberSpace,
  scriptedPeer,
  syncSetOf,
  versionBy,
  waitFor,
} from './scripted-peer.js';
import { nodeFixture } from './sync-helpers.js';

const { make } = nodeFixture();

/** Sync-set order: timestamp, then id as bytes. */
const inSetOrder = (a: Version, b: Version) =>
  a.timestamp - b.timestamp || compareBytes(fromHex(a.id), fromHex(b.id));

describe('pulling a collection', () => {
  it('answers a pull a page at a time, past the cursor, in the sync set’s order', async () => {
    const node = await make();
    const key = keyThat('answers', node.did);
    const { space } = await memberSpace(node, key);
    for (let i = 0; i < 6; i++) await node.records.put(space, 'app.post', { i });
    const p = await scriptedPeer(node, key, [space]);
    await waitFor(() => p.of('hello', space).length > 0, 5000, 'a hello');
    expect(p.of('hello', space)[0]!.p).toBe(true);
    const page = async (q: number, after?: Version) => {
      p.send({ t: 'pull', s: space, q, c: 'app.post', ...(after ? { a: cursorOf(after) } : {}) });
      await waitFor(() => p.of('vers', space).some((m) => m.q === q), 5000, `answer ${q}`);
      return p
        .of('vers', space)
        .find((m) => m.q === q)!
        .v.map((bytes) => decodeVersion(bytes))
        .filter((v) => v.collection === 'app.post');
    };
    const all = await page(1);
    expect(all).toHaveLength(6);
    expect(all.map((v) => v.id)).toEqual([...all].sort(inSetOrder).map((v) => v.id));
    // Past the third: the last three, and past the last, nothing.
    expect((await page(2, all[2])).map((v) => v.id)).toEqual(all.slice(3).map((v) => v.id));
    expect(await page(3, all[5])).toEqual([]);
    // A collection the node holds nothing of: an empty page.
    p.send({ t: 'pull', s: space, q: 4, c: 'app.none' });
    await waitFor(() => p.of('vers', space).some((m) => m.q === 4), 5000, 'answer 4');
    expect(p.of('vers', space).find((m) => m.q === 4)!.v).toEqual([]);
    expect(p.peer.endReason).toBeUndefined();
  });

  it('a node starting with none of a collection pulls it whole, then reconciles it', async () => {
    const node = await make();
    const owner = keyThat('answers', node.did);
    const space = randomId();
    const spaceKey = randomKey();
    await node.spaces.join({ id: space, key: spaceKey, owner: owner.did, versions: [] });
    const mine: Version[] = [];
    for (let i = 0; i < 3; i++)
      mine.push(await versionBy(owner, spaceKey, space, 'app.post', { i }));
    mine.sort(inSetOrder);
    const set = syncSetOf(mine);
    const p = await scriptedPeer(node, owner, [space]);
    const pulls: Array<string | undefined> = [];
    p.onMessage = (m) => {
      if (m.t === 'neg') p.send(answerNeg(m.c === 'app.post' ? set : syncSetOf([]), m));
      if (m.t === 'pull') {
        // Pages of two: the first two, then what is past the cursor.
        pulls.push(m.a && toHex(m.a));
        const from = m.a ? mine.findIndex((v) => toHex(cursorOf(v)) === toHex(m.a!)) + 1 : 0;
        p.send({ t: 'vers', s: space, q: m.q, v: mine.slice(from, from + 2).map((v) => v.bytes) });
      }
    };
    p.send({ ...(helloFrom(space, [['app.post', 3]]) as MessageOf<'hello'>), p: true });
    await waitFor(async () => (await node.spaces.status(space)).versions === 3, 5000, 'the pull');
    // Three pulls: from the start, past the second, past the third (an empty page ends it).
    await waitFor(() => pulls.length >= 3, 5000, 'the last pull');
    expect(pulls).toEqual([undefined, toHex(cursorOf(mine[1]!)), toHex(cursorOf(mine[2]!))]);
    expect(p.of('want', space)).toEqual([]);
    // Then the collection is reconciled, which finds what a pull may have missed.
    await waitFor(() => p.of('neg', space).some((m) => m.c === 'app.post'), 5000, 'a session');
    expect(p.peer.endReason).toBeUndefined();
  });

  it('a pull with a cursor that is not 40 bytes ends the connection', async () => {
    const node = await make();
    const { space, p } = await memberPeer(node, 'answers');
    p.send({ t: 'pull', s: space, q: 1, c: 'app.post', a: new Uint8Array(39) });
    await waitFor(() => p.peer.endReason !== undefined, 5000, 'the connection to end');
    expect(p.peer.endReason).toMatch(/cursor/);
  });
});
