// `vers` messages of one space that wait in a connection's inbox one after another, their checks
// over, are taken in together, in one commit (spec 05 §8 "Taking versions in"), except those
// carrying the space's own records, which go one message at a time; a bad one among them ends
// the connection.
import { describe, expect, it } from 'vitest';
import { InboxAhead, type Pending } from '../src/sync/inbox-ahead.js';
import { encodeMessage, type Message } from '../src/sync/messages.js';
import { createVersions, type Version } from '../src/version.js';
import { countingCommits } from './fake-adapter.js';
import { keyThat, memberSpace, pushingPeer, waitFor } from './scripted-peer.js';
import { nodeFixture } from './sync-helpers.js';
import { posts } from './version-fixture.js';

const { make } = nodeFixture();

/** The `vers` message a frame decoded to ahead of its turn. */
const versOf = (pending: Readonly<Pending>) =>
  pending.early!.message as Extract<Message, { t: 'vers' }>;

const vers = (space: string, versions: readonly Version[]) =>
  encodeMessage({ t: 'vers', s: space, v: versions.map((v) => v.bytes) });

describe('vers messages waiting one after another', () => {
  it('are taken in together: fewer commits than messages, every version stored', async () => {
    const { factory, commits } = countingCommits(20);
    const node = await make({ stores: factory });
    const { key, space, spaceKey, p } = await pushingPeer(node);
    const versions = await posts(space, spaceKey, key, 1_200);
    commits.length = 0;
    // Twelve messages of 100 in one go: they wait, and are checked, while the first is stored.
    for (let at = 0; at < versions.length; at += 100)
      p.raw(vers(space, versions.slice(at, at + 100)));
    await waitFor(
      async () => (await node.spaces.status(space)).versions >= 1_200,
      30_000,
      'every pushed version stored',
    );
    expect(p.peer.endReason).toBeUndefined();
    expect(commits.reduce((a, b) => a + b, 0)).toBe(1_200);
    expect(commits.length).toBeLessThan(12);
    expect(Math.max(...commits)).toBeGreaterThan(100);
    expect((await node.records.list(space, 'app.post')).length).toBe(1_200);
  });

  it('end the connection when one of them fails its checks; none of that one is stored', async () => {
    const node = await make();
    const { key, space, spaceKey, p } = await pushingPeer(node);
    const good = await posts(space, spaceKey, key, 300);
    // A member's version with its signature's last byte changed: it does not verify.
    const forged = (await posts(space, spaceKey, key, 1, 300))[0]!.bytes.slice();
    forged[forged.length - 1]! ^= 1;
    p.raw(vers(space, good.slice(0, 100)));
    p.raw(vers(space, good.slice(100, 200)));
    p.raw(
      encodeMessage({
        t: 'vers',
        s: space,
        v: [...good.slice(200, 299).map((v) => v.bytes), forged],
      }),
    );
    p.raw(vers(space, good.slice(299)));
    await waitFor(() => p.closedWith() !== undefined, 30_000, 'the connection ended');
    expect(p.peer.endReason).toMatch(/signature|invalid/);
    const stored = new Set((await node.records.list(space, 'app.post')).map((r) => r.id));
    // The bad message's good versions were not stored, nor what came after it.
    for (const v of good.slice(200)) expect(stored.has(v.record)).toBe(false);
  });
});

/**
 * An inbox that received `frames` and whose first one's turn came; with `checked`, once every
 * check started so far is over. `join` asks what joins the first one.
 */
async function inboxOf(frames: Uint8Array[], checked = true) {
  const inbox = new InboxAhead(() => true);
  const [first, ...rest] = frames.map((frame) => inbox.arrived(frame));
  inbox.taken();
  if (checked) await Promise.allSettled(rest.map((p) => p.early?.ahead?.verified));
  const join = (mayJoin = () => true) =>
    inbox.joinVersions(versOf(first!), first!.early!.ahead, mayJoin);
  return { first: first!, rest, join };
}

describe('InboxAhead.joinVersions', () => {
  it('joins the checked vers of the same space next in line, up to anything else', async () => {
    const node = await make();
    const key = keyThat('starts', node.did);
    const { space, spaceKey } = await memberSpace(node, key);
    const other = (await node.spaces.create()).id;
    const vs = await posts(space, spaceKey, key, 4);
    const hello = encodeMessage({ t: 'hello', s: space, f: new Uint8Array(32), c: [] });
    const a = await inboxOf([
      vers(space, vs.slice(0, 1)),
      vers(space, vs.slice(1, 2)),
      hello,
      vers(space, vs.slice(2, 3)),
    ]);
    expect(a.join().map((j) => j.message)).toEqual([a.rest[0]!.early!.message]);
    expect(a.rest.map((r) => r.joined === true)).toEqual([true, false, false]);
    // Another space's message next in line is not joined.
    const b = await inboxOf([vers(space, vs.slice(0, 1)), vers(other, vs.slice(3))]);
    expect(b.join()).toEqual([]);
    // Nor is one whose checks still run: the first one's versions are stored meanwhile.
    const c = await inboxOf([vers(space, vs.slice(0, 1)), vers(space, vs.slice(1, 2))], false);
    expect(c.join()).toEqual([]);
    expect(c.rest[0]!.joined).toBeUndefined();
  });

  it('looks at the frames after those it joined', async () => {
    const node = await make();
    const key = keyThat('starts', node.did);
    const { space, spaceKey } = await memberSpace(node, key);
    const vs = await posts(space, spaceKey, key, 6);
    const { rest, join } = await inboxOf(vs.map((v) => vers(space, [v])));
    // In hand the first; the next three decoded and checked ahead, the last two not yet.
    expect(rest.map((r) => r.early !== undefined)).toEqual([true, true, true, false, false]);
    expect(join()).toHaveLength(3);
    // Joined, those three no longer count as waiting: the two after them are looked at.
    expect(rest.map((r) => r.early?.ahead !== undefined)).toEqual([true, true, true, true, true]);
  });

  it('joins nothing to, or after, a message carrying the space’s own records', async () => {
    const node = await make();
    const key = keyThat('starts', node.did);
    const { space, spaceKey } = await memberSpace(node, key);
    const vs = await posts(space, spaceKey, key, 3);
    const [sys] = await createVersions(
      [
        {
          space,
          collection: 'sys.members',
          record: 'm1',
          supersedes: [],
          timestamp: 1_700_000_000_100,
          files: [],
          body: { role: 'writer' },
        },
      ],
      spaceKey,
      key,
    );
    // A system version in hand: nothing joins it.
    expect((await inboxOf([vers(space, [sys!]), vers(space, vs.slice(0, 1))])).join()).toEqual([]);
    // Next in line: joining stops before it.
    const { join, rest } = await inboxOf([
      vers(space, vs.slice(0, 1)),
      vers(space, vs.slice(1, 2)),
      vers(space, [sys!]),
      vers(space, vs.slice(2, 3)),
    ]);
    expect(join()).toHaveLength(1);
    expect(rest.map((r) => r.joined === true)).toEqual([true, false, false]);
    // `mayJoin` refusing one stops there too.
    const refused = await inboxOf([vers(space, vs.slice(0, 1)), vers(space, vs.slice(1, 2))]);
    expect(refused.join(() => false)).toEqual([]);
  });
});
