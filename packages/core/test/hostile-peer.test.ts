// A peer that breaks the rules: each case ends that connection with a clear reason, the node
// keeps serving its other peers, and nothing it stored is lost or changed.
import { randomBytes } from '@noble/ciphers/utils.js';
import { describe, expect, it } from 'vitest';
import { fromHex } from '../src/bytes.js';
import { encodeCbor } from '../src/encoding.js';
import { SigningKey } from '../src/keys.js';
import type { MincaNode } from '../src/node.js';
import { randomKey } from '../src/seal.js';
import { createMemoryTransportPair } from '../src/sync/memory-transport.js';
import { decodeMessage, encodeMessage, type Message } from '../src/sync/messages.js';
import type { Peer } from '../src/sync/peer.js';
import { createVersion } from '../src/version.js';
import { connect, converged, newNode, nodeFixture, until } from './sync-helpers.js';

/** Negentropy V1: "I hold nothing in the whole range" (version, infinity bound, IdList of 0). */
const EMPTY_INITIATE = new Uint8Array([0x61, 0x00, 0x00, 0x02, 0x00]);

const { nodes } = nodeFixture();

/** A node, one honest member and a space; `evil` is a key the owner also made a writer. */
async function setup() {
  const owner = await newNode();
  const honest = await newNode();
  nodes.push(owner, honest);
  // The hand-rolled peer starts reconciling (the smaller DID does), so the node only answers.
  let evil = SigningKey.generate();
  while (evil.did >= owner.did) evil = SigningKey.generate();
  const space = (await owner.spaces.create()).id;
  await owner.spaces.setRole(space, honest.did, 'writer');
  await owner.spaces.setRole(space, evil.did, 'writer');
  await honest.spaces.join(await owner.spaces.share(space, honest.did));
  for (let i = 0; i < 10; i++) await owner.records.put(space, 'app.post', { i });
  const before = await owner.spaces.status(space);
  const ticket = await owner.spaces.share(space, evil.did);
  return { owner, honest, evil, space, before, ticket };
}

/** Speaks the protocol by hand as `key`: handshakes, then sends whatever a test says. */
async function handRolled(node: MincaNode, key: SigningKey, spaces: string[]) {
  const [mine, theirs] = createMemoryTransportPair();
  const received: Message[] = [];
  let closedWith: string | undefined;
  mine.onClose = (reason) => (closedWith = reason);
  const nonce = randomBytes(32);
  // Signing is async: our auth goes once signed, and our spaces only after it.
  let authSent: Promise<void> = Promise.resolve();
  mine.onMessage = (frame) => {
    const m = decodeMessage(frame);
    received.push(m);
    if (m.t === 'hi') {
      const signed = encodeCbor(['minca/handshake/v1', key.did, m.d, m.n, nonce]);
      authSent = key.sign(signed).then((g) => mine.send(encodeMessage({ t: 'auth', g })));
    }
    if (m.t === 'auth')
      void authSent.then(() => mine.send(encodeMessage({ t: 'spaces', s: spaces })));
  };
  mine.send(encodeMessage({ t: 'hi', v: 1, d: key.did, n: nonce }));
  const peer: Peer = node.connect(theirs);
  await until(
    () => received.some((m) => m.t === 'spaces') && peer.did !== undefined,
    5000,
    'the handshake',
  );
  return {
    peer,
    received,
    send: (m: Message) => mine.send(encodeMessage(m)),
    raw: (frame: Uint8Array) => mine.send(frame),
    closedWith: () => closedWith,
  };
}

async function expectCutOff(
  ctx: Awaited<ReturnType<typeof setup>>,
  evil: Awaited<ReturnType<typeof handRolled>>,
  reason: RegExp,
) {
  await until(
    () => evil.peer.endReason !== undefined && evil.closedWith() !== undefined,
    5000,
    'the connection to end',
  );
  expect(evil.peer.endReason).toMatch(reason);
  expect(evil.closedWith()).toMatch(reason);
  // Nothing stored was lost or changed, and the node still serves an honest peer.
  const after = await ctx.owner.spaces.status(ctx.space);
  expect(after.fingerprint).toBe(ctx.before.fingerprint);
  connect(ctx.owner, ctx.honest);
  await converged([ctx.owner, ctx.honest], ctx.space);
}

const forge = (
  ctx: Awaited<ReturnType<typeof setup>>,
  over: Partial<Parameters<typeof createVersion>[0]> = {},
  spaceKey = ctx.ticket.key,
  key = ctx.evil,
) =>
  createVersion(
    {
      space: ctx.space,
      collection: 'app.post',
      record: 'evil',
      supersedes: [],
      timestamp: Date.now(),
      files: [],
      body: { evil: true },
      ...over,
    },
    spaceKey,
    key,
  );

describe('a hostile peer', () => {
  it('sending a forged signature is cut off', async () => {
    const ctx = await setup();
    const evil = await handRolled(ctx.owner, ctx.evil, [ctx.space]);
    const v = await forge(ctx);
    const bytes = v.bytes.slice();
    bytes[bytes.length - 1]! ^= 1; // the signature's last byte
    evil.send({ t: 'vers', s: ctx.space, v: [bytes] });
    await expectCutOff(ctx, evil, /signature|invalid version/);
  });

  it('sending a version sealed under another key is cut off', async () => {
    const ctx = await setup();
    const evil = await handRolled(ctx.owner, ctx.evil, [ctx.space]);
    evil.send({ t: 'vers', s: ctx.space, v: [(await forge(ctx, {}, randomKey())).bytes] });
    await expectCutOff(ctx, evil, /does not open/);
  });

  it('relaying a non-member’s version has it refused with a reason', async () => {
    const ctx = await setup();
    const evil = await handRolled(ctx.owner, ctx.evil, [ctx.space]);
    const stranger = SigningKey.generate();
    const v = await forge(ctx, {}, ctx.ticket.key, stranger);
    evil.send({ t: 'vers', s: ctx.space, v: [v.bytes] });
    // It waits while a grant may be on its way; once the session is past sys.*, it is refused.
    await new Promise((r) => setTimeout(r, 50));
    expect(evil.received.some((m) => m.t === 'refuse')).toBe(false);
    evil.send({ t: 'neg', s: ctx.space, c: 'app.post', m: EMPTY_INITIATE });
    await until(() => evil.received.some((m) => m.t === 'refuse'), 5000, 'a refusal');
    const refusal = evil.received.find((m) => m.t === 'refuse') as Extract<
      Message,
      { t: 'refuse' }
    >;
    expect(refusal.i).toEqual(fromHex(v.id));
    expect(refusal.w).toMatch(/may not write/);
    expect((await ctx.owner.spaces.status(ctx.space)).fingerprint).toBe(ctx.before.fingerprint);
    expect(evil.peer.endReason).toBeUndefined();
  });

  it('sending malformed, truncated, unknown or oversized frames is cut off', async () => {
    for (const frame of [
      new Uint8Array([0xff, 0x00]),
      encodeMessage({ t: 'hello', s: 'a'.repeat(26), f: new Uint8Array(16), c: [] }).slice(0, 10),
      encodeCbor({ t: 'nonsense' }),
      encodeCbor({ t: 'want', s: 'a'.repeat(26), q: 1, i: [], extra: 1 }),
      new Uint8Array(3 * 1024 * 1024),
    ]) {
      const ctx = await setup();
      const evil = await handRolled(ctx.owner, ctx.evil, [ctx.space]);
      evil.raw(frame);
      await expectCutOff(ctx, evil, /bad message|invalid CBOR|over|CBOR/);
      for (const node of nodes.splice(0)) await node.close();
    }
  });

  it('answering a want never asked, or a reconciliation that never ends, is cut off', async () => {
    const ctx = await setup();
    const evil = await handRolled(ctx.owner, ctx.evil, [ctx.space]);
    evil.send({ t: 'vers', s: ctx.space, q: 12345, v: [] });
    await expectCutOff(ctx, evil, /not asked/);

    for (const node of nodes.splice(0)) await node.close();
    const ctx2 = await setup();
    const evil2 = await handRolled(ctx2.owner, ctx2.evil, [ctx2.space]);
    // As responder the node answers each round; a peer that never stops is cut after the limit.
    for (let i = 0; i < 400 && evil2.peer.endReason === undefined; i++) {
      evil2.send({ t: 'neg', s: ctx2.space, c: 'app.post', m: EMPTY_INITIATE });
      await new Promise((r) => setTimeout(r, 0));
    }
    await expectCutOff(ctx2, evil2, /reconciliation messages/);
  });

  it('a flood of wants and replays change nothing and do not stop others', async () => {
    const ctx = await setup();
    const evil = await handRolled(ctx.owner, ctx.evil, [ctx.space]);
    const ids = [...(await ctx.owner.records.list(ctx.space, 'app.post'))].map((r) =>
      fromHex(r.version),
    );
    for (let q = 0; q < 500; q++) evil.send({ t: 'want', s: ctx.space, q, i: ids });
    const mine = await forge(ctx, { record: 'mine' });
    for (let i = 0; i < 50; i++) evil.send({ t: 'vers', s: ctx.space, v: [mine.bytes] }); // the same version, replayed
    connect(ctx.owner, ctx.honest);
    await converged([ctx.owner, ctx.honest], ctx.space);
    await until(
      () => evil.received.filter((m) => m.t === 'vers').length >= 500,
      10_000,
      'answers to every want',
    );
    // The replays come after the wants, so they may still be landing: the one version, once.
    const versions = async () => (await ctx.owner.spaces.status(ctx.space)).versions;
    await until(
      async () => (await versions()) >= ctx.before.versions + 1,
      10_000,
      'the replayed version',
    );
    expect(await versions()).toBe(ctx.before.versions + 1);
    expect(evil.peer.endReason).toBeUndefined();
  });

  it('two full offers pass; a flood of large spaces messages is cut off at 5 MiB', async () => {
    const ctx = await setup();
    const evil = await handRolled(ctx.owner, ctx.evil, [ctx.space]);
    const ids = (n: number) =>
      Array.from({ length: n }, () => {
        const b = randomBytes(26);
        return Array.from(b, (x) => 'abcdefghijklmnopqrstuvwxyz234567'[x & 31]).join('');
      });
    // 10,000 names with as many access proofs for other spaces: 1.8 MB, as big as an offer gets.
    const large = (): Message => ({
      t: 'spaces',
      s: ids(10_000),
      p: ids(10_000).map((id) => [id, ctx.evil.did, randomBytes(64)]),
    });
    // Two are what an honest peer may send in a window (its offer, and one again).
    for (let i = 0; i < 2; i++) evil.send(large());
    // Messages are handled in order: once a want after them is answered, they were taken in.
    const [first] = await ctx.owner.records.list(ctx.space, 'app.post');
    evil.send({ t: 'want', s: ctx.space, q: 1, i: [fromHex(first!.version)] });
    await until(() => evil.received.some((m) => m.t === 'vers'), 10_000, 'the answer');
    expect(evil.peer.endReason).toBeUndefined();
    evil.send(large());
    await expectCutOff(ctx, evil, /5 MiB of spaces messages/);
  });
});
