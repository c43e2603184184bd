// A peer that lies to a holder: about the space it has, or with versions it made up. Each case
// ends that connection with a clear reason, and the holder keeps what it has.
import { randomBytes } from '@noble/ciphers/utils.js';
import { describe, expect, it } from 'vitest';
import { encodeCbor } from '../src/encoding.js';
import { spaceAccessKey } from '../src/hosting/access-key.js';
import { SigningKey } from '../src/keys.js';
import { createNode, type MincaNode } from '../src/node.js';
import { randomKey } from '../src/seal.js';
import { accessProofBytes } from '../src/sync/handshake.js';
import { createMemoryTransportPair } from '../src/sync/memory-transport.js';
import { decodeMessage, encodeMessage, type Message } from '../src/sync/messages.js';
import { createVersion } from '../src/version.js';
import { fakeStores } from './fake-adapter.js';
import { connect, converged, newNode, nodeFixture, until } from './sync-helpers.js';

const { nodes } = nodeFixture();

/** A host holding a space its owner filled; `key` is the space key, known to the test only. */
async function setup() {
  const owner = await newNode();
  const host = await createNode({ stores: fakeStores(), holding: {} });
  nodes.push(owner, host);
  const { id: space } = await owner.spaces.create();
  await owner.spaces.allowHolder(space, host.did);
  for (let i = 0; i < 5; i++) await owner.records.put(space, 'app.post', { i });
  connect(owner, host);
  await until(async () => (await host.spaces.held()).length === 1, 5000, 'held');
  await converged([owner, host], space);
  const { key } = await owner.spaces.share(space, owner.did);
  const before = await host.spaces.status(space);
  return { owner, host, space, key, before };
}

/** Handshakes with `node` as `key`, then offers `space` with whatever proof `prove` makes. */
async function liar(
  node: MincaNode,
  key: SigningKey,
  space: string,
  prove: (peerNonce: Uint8Array, nonce: Uint8Array, peer: string) => Promise<[string, Uint8Array]>,
  credentials: Uint8Array[] = [],
) {
  const [mine, theirs] = createMemoryTransportPair();
  const received: Message[] = [];
  const nonce = randomBytes(32);
  mine.onMessage = (frame) => {
    const m = decodeMessage(frame);
    received.push(m);
    if (m.t === 'hi') {
      const signed = encodeCbor(['minca/handshake/v1', key.did, m.d, m.n, nonce]);
      // Signing is async: the auth goes once signed, the spaces (with their proof) after it.
      void (async () => {
        mine.send(encodeMessage({ t: 'auth', g: await key.sign(signed) }));
        const [access, proof] = await prove(m.n, nonce, m.d);
        setTimeout(
          () =>
            mine.send(
              encodeMessage({
                t: 'spaces',
                s: [space],
                p: [[space, access, proof]],
                ...(credentials.length > 0 ? { a: credentials } : {}),
              }),
            ),
          0,
        );
      })();
    }
  };
  mine.send(encodeMessage({ t: 'hi', v: 1, d: key.did, n: nonce }));
  const peer = node.connect(theirs);
  return { peer, received, send: (m: Message) => mine.send(encodeMessage(m)) };
}

describe('a holder lets in only peers that prove the space', () => {
  it('cuts off a forged or replayed access proof, and keeps what it has', async () => {
    const { host, space, key, before } = await setup();
    const access = spaceAccessKey(space, key);
    const someone = SigningKey.generate();
    // A version of the space, validly signed by its author, passed off as a credential.
    const smuggled = await createVersion(
      {
        space,
        collection: 'sys.member',
        record: 'x',
        supersedes: [],
        timestamp: Date.now(),
        files: [],
        body: { role: 'owner' },
      },
      randomKey(),
      someone,
    );
    // Signed by another key, under the real access DID.
    const forged = await liar(
      host,
      someone,
      space,
      async (peerNonce, nonce, peer) => [
        access.did,
        await SigningKey.generate().sign(
          accessProofBytes(space, someone.did, peer, peerNonce, nonce),
        ),
      ],
      [smuggled.bytes],
    );
    // The real access key, but over another connection's nonces: a replay.
    const replayed = await liar(host, someone, space, async (_peerNonce, nonce, peer) => [
      access.did,
      await access.sign(accessProofBytes(space, someone.did, peer, randomBytes(32), nonce)),
    ]);
    for (const { peer } of [forged, replayed]) {
      await until(() => peer.endReason !== undefined, 5000, 'the cut-off');
      expect(peer.endReason).toMatch(/access proof for space .* does not verify/);
    }
    expect(await host.spaces.status(space)).toMatchObject({
      fingerprint: before.fingerprint,
      versions: before.versions,
    });
  });

  it('a proven peer still cannot slip in a forged version or one of another space', async () => {
    const { host, space, key, before } = await setup();
    const access = spaceAccessKey(space, key);
    const member = SigningKey.generate();
    const prove = async (
      peerNonce: Uint8Array,
      nonce: Uint8Array,
      peer: string,
    ): Promise<[string, Uint8Array]> => [
      access.did,
      await access.sign(accessProofBytes(space, member.did, peer, peerNonce, nonce)),
    ];
    const good = await createVersion(
      {
        space,
        collection: 'app.post',
        record: 'forged',
        supersedes: [],
        timestamp: Date.now(),
        files: [],
        body: { evil: true },
      },
      key,
      member,
    );
    // `g` (the signature, 64 bytes) comes before `p`, `r`, `s`, `t`, `v` in the sorted map.
    const bytes = good.bytes.slice();
    const tail = encodeCbor({ p: [], r: 'forged', s: space, t: good.timestamp, v: 1 }).length - 1;
    bytes[bytes.length - tail - 10]! ^= 1; // inside the signature: it no longer verifies
    const other = await createVersion(
      { ...good, space: 'aaaaaaaaaaaaaaaaaaaaaaaaaa', record: 'elsewhere', body: { x: 1 } },
      randomKey(),
      member,
    );
    for (const [frame, reason] of [
      [bytes, /signature/],
      [other.bytes, /another space/],
    ] as const) {
      const evil = await liar(host, member, space, prove);
      await until(
        () => evil.received.some((m) => m.t === 'spaces' && m.s.includes(space)),
        5000,
        'the holder to share the space',
      );
      evil.send({ t: 'vers', s: space, v: [frame] });
      await until(() => evil.peer.endReason !== undefined, 5000, 'the cut-off');
      expect(evil.peer.endReason).toMatch(reason);
    }
    expect(await host.spaces.status(space)).toMatchObject({
      fingerprint: before.fingerprint,
      versions: before.versions,
    });
  });
});
