// Bodies opened ahead of their turn (spec 05 §8 "Taking versions in"): what opened then is not
// opened again; what did not is opened at its turn under the keys the space has then, and one
// that opens under none of them is refused as ever. A node pushed many messages opens each body
// once.
import * as nodeCryptoModule from 'node:crypto';
import * as workerThreads from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { decodeIncoming, startOpening, verifyIncoming } from '../src/intake.js';
import { type PlatformCrypto, SigningKey } from '../src/keys.js';
import { nodeCrypto } from '../src/node-crypto.js';
import { randomKey } from '../src/seal.js';
import type { SpaceView } from '../src/space/space-view.js';
import { InboxAhead } from '../src/sync/inbox-ahead.js';
import { encodeMessage } from '../src/sync/messages.js';
import { verifyVersions } from '../src/version.js';
import { errorCode } from './error-code.js';
import { pushingPeer, waitFor } from './scripted-peer.js';
import { nodeFixture } from './sync-helpers.js';
import { posts } from './version-fixture.js';

const { make } = nodeFixture();
const SPACE = 'a'.repeat(26);
const author = SigningKey.generate();

/** `count` versions of `app.post` in {@link SPACE}, their bodies sealed under `key`. */
const sealedUnder = (key: Uint8Array, count: number, from = 0) =>
  posts(SPACE, key, author, count, from);

/** The part of a member's space view `verifyIncoming` reads: it holds the ids `held` (none). */
const spaceWith = (keys: Uint8Array[], held: ReadonlySet<string> = new Set()) =>
  ({
    id: SPACE,
    keys,
    store: { hasVersion: (_: string, id: string) => held.has(id) },
  }) as unknown as SpaceView;

describe('opening bodies ahead', () => {
  it('gives the versions whose bodies opened under the keys given, and never rejects', async () => {
    const [k1, k2] = [randomKey(), randomKey()];
    // 20 and 3: openings many at once, and few enough to open one by one.
    for (const count of [20, 3]) {
      const under1 = await sealedUnder(k1, count);
      const under2 = await sealedUnder(k2, count, count);
      const opened = await startOpening([...under1, ...under2], [k1]);
      expect([...opened]).toEqual(under1);
      expect((await startOpening(under1, [k2])).size).toBe(0);
      expect((await startOpening(under1, [])).size).toBe(0);
      // A version made to look sealed but cut short opens under no key; the rest still do.
      const cut = { ...under1[0]!, bytes: under1[0]!.bytes.subarray(0, 40) };
      expect((await startOpening([cut, ...under1.slice(1)], [k1])).has(cut)).toBe(false);
    }
  });

  it('opens at their turn what did not open ahead, under the keys the space has then', async () => {
    const [k1, k2] = [randomKey(), randomKey()];
    const under1 = await sealedUnder(k1, 20);
    const under2 = await sealedUnder(k2, 20, 20);
    const all = [...under1, ...under2];
    // Ahead, the space had only k1; at their turn, k2 too (a key change came in between).
    const opened = await startOpening(all, [k1]);
    expect(opened.size).toBe(20);
    const ahead = { verified: Promise.resolve(), checking: new Set(all), opened };
    expect(await verifyIncoming(spaceWith([k1, k2]), all, ahead)).toEqual(all);
  });

  it('refuses at their turn a body that opens under none of the space’s keys', async () => {
    const [k1, other] = [randomKey(), randomKey()];
    const good = await sealedUnder(k1, 20);
    const [stranger] = await sealedUnder(other, 1, 20);
    const all = [...good, stranger!];
    const opened = await startOpening(all, [k1]);
    expect(opened.has(stranger!)).toBe(false);
    const ahead = { verified: Promise.resolve(), checking: new Set(all), opened };
    expect(await errorCode(() => verifyIncoming(spaceWith([k1]), all, ahead))).toBe(
      'invalid_version',
    );
  });

  it('starts with a vers message’s checks in the inbox, with the keys of its space', async () => {
    const key = randomKey();
    const versions = await sealedUnder(key, 20);
    const frame = encodeMessage({ t: 'vers', s: SPACE, v: versions.map((v) => v.bytes) });
    const withKeys = new InboxAhead(
      () => true,
      (space) => (space === SPACE ? spaceWith([key]) : undefined),
    ).arrived(frame);
    expect((await withKeys.early!.ahead!.opened).size).toBe(20);
    expect(withKeys.early!.ahead!.checking.size).toBe(20);
    // A space not open here: its bodies are opened at their turn only.
    const closed = new InboxAhead(() => true).arrived(frame);
    expect((await closed.early!.ahead!.opened).size).toBe(0);
  });
});

describe('checking ahead what is not held', () => {
  it('leaves the versions the space holds out of the checks and openings started ahead', async () => {
    const key = randomKey();
    const versions = await sealedUnder(key, 20);
    const space = spaceWith([key], new Set(versions.slice(0, 15).map((v) => v.id)));
    const frame = encodeMessage({ t: 'vers', s: SPACE, v: versions.map((v) => v.bytes) });
    const ahead = new InboxAhead(
      () => true,
      () => space,
    ).arrived(frame).early!.ahead!;
    expect(ahead.versions).toHaveLength(20);
    expect([...ahead.checking].map((v) => v.id)).toEqual(versions.slice(15).map((v) => v.id));
    expect((await ahead.opened).size).toBe(5);
  });

  it('checks at their turn the versions the look-ahead did not: a forged one is refused', async () => {
    const key = randomKey();
    const good = await sealedUnder(key, 5);
    const [other] = await sealedUnder(key, 1, 5);
    // Its signature's last byte changed: the id still is the hash of its bytes.
    const bytes = other!.bytes.slice();
    bytes[bytes.length - 1]! ^= 1;
    const [forged] = decodeIncoming([bytes]);
    const all = [...good, forged!];
    const ahead = { verified: Promise.resolve(), checking: new Set(good), opened: new Set(good) };
    expect(await errorCode(() => verifyIncoming(spaceWith([key]), all, ahead))).toBe(
      'invalid_version',
    );
    // Checked ahead, it would have been refused by the checks started then.
    const checkedAhead = { ...ahead, verified: verifyVersions([forged!]) };
    checkedAhead.verified.catch(() => {});
    expect(
      await errorCode(() =>
        verifyIncoming(spaceWith([key]), all, { ...checkedAhead, checking: new Set(all) }),
      ),
    ).toBe('invalid_version');
  });
});

describe('a node taking in vers messages', () => {
  it('opens each body once, those of the messages waiting while one is stored ahead, and checks nothing sent again', async () => {
    // Bodies opened on worker threads and signatures checked, counted.
    const platform = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 1 });
    const aead = platform.chacha20poly1305!;
    const counts = { bodies: 0, signatures: 0 };
    const counted: PlatformCrypto = {
      ...platform,
      chacha20poly1305: {
        ...aead,
        async openSaltedMany(batch) {
          counts.bodies += batch.count;
          return aead.openSaltedMany!(batch);
        },
      },
      ed25519Verifier(publicKey) {
        const verify = platform.ed25519Verifier!(publicKey);
        return (message, signature) => {
          counts.signatures++;
          return verify(message, signature);
        };
      },
      ed25519VerifyMany(checks) {
        counts.signatures += checks.length;
        return platform.ed25519VerifyMany!(checks);
      },
    };
    const node = await make({ crypto: counted });
    const { key, space, spaceKey, p } = await pushingPeer(node);
    const versions = await posts(space, spaceKey, key, 1_300);
    const push = (from: number, to: number) => {
      for (let at = from; at < to; at += 100)
        p.raw(
          encodeMessage({
            t: 'vers',
            s: space,
            v: versions.slice(at, Math.min(at + 100, to)).map((v) => v.bytes),
          }),
        );
    };
    const stored = (n: number) =>
      waitFor(
        async () => (await node.spaces.status(space)).versions >= n,
        30_000,
        `${n} pushed versions stored`,
      );
    counts.bodies = 0;
    counts.signatures = 0;
    push(0, 1_200);
    await stored(1_200);
    expect(p.peer.endReason).toBeUndefined();
    // Each opened and checked once: ahead of its turn, or at it.
    expect(counts).toEqual({ bodies: 1_200, signatures: 1_200 });

    // Sent again, they cost a lookup each, ahead as at their turn: the hundred new ones after them
    // are the only ones checked and opened.
    push(0, 1_200);
    push(1_200, 1_300);
    await stored(1_300);
    expect(p.peer.endReason).toBeUndefined();
    expect(counts).toEqual({ bodies: 1_300, signatures: 1_300 });
  });
});
