// What a peer that asks and does not read can make a node hold (spec 05 §10.1): answers to its
// wants and pulls, its file requests and what the node pushes to it wait for room in the
// transport, a bounded number of them; one that reads nothing for a minute is cut off.
import { describe, expect, it } from 'vitest';
import { fromHex } from '../src/bytes.js';
import { Negentropy } from '../src/negentropy/index.js';
import type { MincaNode } from '../src/node.js';
import { PULL_PAGE_BYTES } from '../src/sync/collection-pull.js';
import { NEGENTROPY_FRAME_LIMIT, VERS_MESSAGE_BYTES } from '../src/sync/messages.js';
import { READ_PART } from '../src/sync/outgoing.js';
import {
  MAX_ANSWERS_WAITING,
  OUTPUT_PAUSE_BYTES,
  OUTPUT_STALL_MS,
} from '../src/sync/peer-outbox.js';
import { MAX_VERSION_BYTES } from '../src/version-format.js';
import { countingReads } from './fake-adapter.js';
import { advance, within } from './files/clock.js';
import {
  answerNeg,
  helloFrom,
  keyThat,
  memberSpace,
  type ScriptedPeer,
  scriptedPeer,
  syncSetOf,
} from './scripted-peer.js';
import { nodeFixture, until } from './sync-helpers.js';

/** `count` records of about `bytes` each, for a `putMany`. */
const records = (count: number, bytes: number) =>
  Array.from({ length: count }, (_, i) => ({ body: { text: 'x'.repeat(bytes), i } }));

/** What the node sent and the peer has not read. */
const unread = (p: ScriptedPeer) => p.transport.buffered ?? 0;

/** Why the node ended the connection, once it did: the peer hears only once it reads again. */
function endedWith(p: ScriptedPeer): () => string | undefined {
  let reason: string | undefined;
  p.peer.onEnd((why) => {
    reason = why;
  });
  return () => reason;
}

/** The pulls and wants the node answered, by number. */
const answered = (p: ScriptedPeer, space: string) =>
  new Set(p.of('vers', space).flatMap((m) => (m.q === undefined ? [] : [m.q])));

/**
 * A new node (from `make`) with a space in which a scripted member, connected, is `role` (who
 * starts reconciling), and `count` app.post records of about `bytes` each (400 of 2,000: about
 * 900 KB, pages of 512 KiB).
 */
async function connected(
  make: () => Promise<MincaNode>,
  role: 'starts' | 'answers',
  count = 400,
  bytes = 2000,
) {
  const node = await make();
  const key = keyThat(role, node.did);
  const { space } = await memberSpace(node, key);
  const written = await node.records.putMany(space, 'app.post', records(count, bytes));
  const p = await scriptedPeer(node, key, [space]);
  return { node, space, p, ids: written.map((r) => fromHex(r.version)) };
}

/** Asks `count` pages of app.post from the first, numbered from 1,000. */
function pull(p: ScriptedPeer, space: string, count: number) {
  for (let q = 0; q < count; q++) p.send({ t: 'pull', s: space, q: 1000 + q, c: 'app.post' });
}

describe('answers wait for room to be sent', () => {
  const { make } = nodeFixture();

  it('a member asking for 60 pages and reading none gets a few MiB held for it, then every answer', async () => {
    const { space, p } = await connected(make, 'answers');
    p.reading(false);
    pull(p, space, 60);
    await until(() => unread(p) > OUTPUT_PAUSE_BYTES, 20_000, 'the send buffer to fill');
    // The pages left wait for room: what is held stays at the bound and one page past it.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(unread(p)).toBeLessThanOrEqual(OUTPUT_PAUSE_BYTES + PULL_PAGE_BYTES);
    expect(answered(p, space).size).toBe(0);
    expect(p.closedWith()).toBeUndefined();
    p.reading(true);
    await until(() => answered(p, space).size === 60, 30_000, 'every pull answered');
    expect(p.closedWith()).toBeUndefined();
  });

  it(`ends the connection past ${MAX_ANSWERS_WAITING} requests waiting for an answer`, async () => {
    const { space, p } = await connected(make, 'answers');
    const ended = endedWith(p);
    p.reading(false);
    pull(p, space, MAX_ANSWERS_WAITING + 20);
    await until(() => ended() !== undefined, 20_000, 'the connection to end');
    expect(ended()).toMatch(
      new RegExp(`more than ${MAX_ANSWERS_WAITING} requests waiting for an answer`),
    );
  });

  it('makes reconciliation replies once there is room, each in its turn', async () => {
    // The peer starts: the node answers each of its reconciliation messages.
    const { space, p } = await connected(make, 'starts');
    p.reading(false);
    pull(p, space, 12);
    await until(() => unread(p) > OUTPUT_PAUSE_BYTES, 20_000, 'the send buffer to fill');
    const first = new Negentropy(syncSetOf([]), NEGENTROPY_FRAME_LIMIT).initiate();
    for (let i = 0; i < 200; i++) p.send({ t: 'neg', s: space, c: 'app.post', m: first });
    await new Promise((r) => setTimeout(r, 1_000));
    // 200 replies listing 400 ids each (2.5 MB) are not made while nothing is read.
    expect(unread(p)).toBeLessThanOrEqual(OUTPUT_PAUSE_BYTES + PULL_PAGE_BYTES);
    p.reading(true);
    await until(() => p.of('neg', space).length === 200, 30_000, 'every reply');
    expect(answered(p, space).size).toBe(12);
  });

  it('serves no more than 16 file requests to a peer that reads nothing', async () => {
    const { space, p } = await connected(make, 'answers');
    const ended = endedWith(p);
    p.reading(false);
    pull(p, space, 12);
    await until(() => unread(p) > OUTPUT_PAUSE_BYTES, 20_000, 'the send buffer to fill');
    for (let q = 0; q < 17; q++)
      p.send({ t: 'fwant', s: space, q, i: new Uint8Array(32).fill(q + 1), l: true, n: [0] });
    await until(() => ended() !== undefined, 20_000, 'the connection to end');
    expect(ended()).toMatch(/more than 16 file requests at once/);
  });

  it('answers a want of large versions a few at a time, as the peer reads', async () => {
    // 128 versions of 200 KB: 26 MB asked for in one message of 4 KB.
    const { space, p, ids } = await connected(make, 'answers', 128, 200_000);
    p.reading(false);
    p.send({ t: 'want', s: space, q: 7, i: ids });
    await until(() => unread(p) > OUTPUT_PAUSE_BYTES, 20_000, 'the send buffer to fill');
    await new Promise((r) => setTimeout(r, 1_000));
    // Held is the bound and one part read at once past it, not every version asked for.
    expect(unread(p)).toBeLessThanOrEqual(OUTPUT_PAUSE_BYTES + READ_PART * MAX_VERSION_BYTES);
    expect(answered(p, space).size).toBe(0);
    p.reading(true);
    await until(() => answered(p, space).has(7), 30_000, 'the want answered');
    const sent = p.of('vers', space).reduce((n, m) => n + m.v.length, 0);
    expect(sent).toBeGreaterThanOrEqual(128);
  });

  it('stops reading what it was sending once the connection ends', async () => {
    const { stores, count } = countingReads();
    const { space, p, ids } = await connected(() => make({ stores }), 'answers', 128, 200_000);
    p.reading(false);
    p.send({ t: 'want', s: space, q: 7, i: ids });
    await until(() => unread(p) > OUTPUT_PAUSE_BYTES, 20_000, 'the send buffer to fill');
    const read = count.versions;
    expect(read).toBeLessThan(ids.length);
    p.peer.close('done');
    await new Promise((r) => setTimeout(r, 1_000));
    // The part being read when it ended, at most: not the rest of the 128 asked for.
    expect(count.versions - read).toBeLessThanOrEqual(READ_PART);
  });

  it('pushes to a peer that reads nothing a part at a time, as it reads', async () => {
    // The node starts: it learns the peer lacks everything and pushes it, unasked.
    const { space, p } = await connected(make, 'answers', 10_000, 1500);
    const empty = syncSetOf([]);
    p.onMessage = (m) => {
      if (m.t === 'neg') p.send(answerNeg(empty, m));
      // Past the space's own records, once its app.post comes.
      if (m.t === 'vers' && m.v.length >= 100) p.reading(false);
    };
    p.send(helloFrom(space, []));
    await until(() => unread(p) > OUTPUT_PAUSE_BYTES, 20_000, 'the send buffer to fill');
    await new Promise((r) => setTimeout(r, 1_000));
    // All of it is 16 MB; held is the bound, one part read past it and a message being packed.
    expect(unread(p)).toBeLessThan(OUTPUT_PAUSE_BYTES + READ_PART * 2000 + VERS_MESSAGE_BYTES);
    p.reading(true);
    await until(
      () => p.of('vers', space).reduce((n, m) => n + m.v.length, 0) >= 10_000,
      30_000,
      'every version pushed',
    );
  });
});

describe('a peer that reads nothing', () => {
  const { make } = nodeFixture({ fakeClock: true });

  it(`is cut off once the node could send nothing for ${OUTPUT_STALL_MS / 1000} s`, async () => {
    const { space, p } = await connected(make, 'answers');
    const ended = endedWith(p);
    p.reading(false);
    pull(p, space, 20);
    await within(10_000, () => unread(p) > OUTPUT_PAUSE_BYTES, 'the send buffer to fill', 50);
    await advance(OUTPUT_STALL_MS - 5_000, 500);
    expect(ended()).toBeUndefined();
    await advance(10_000, 500);
    expect(ended()).toMatch(/read nothing of 4 MiB sent to it in 60 s/);
  });
});
