// Bodies opened ahead of their turn (spec 05 §8 "Taking versions in"): what opened then is not
// opened again; what did not is opened at its turn under the keys the space has then, and one
// that opens under none of them is refused as ever. A node pushed many messages opens each body
// once.
import * as nodeCryptoModule from 'node:crypto';
import * as workerThreads from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { startOpening, verifyIncoming } from '../src/intake.js';
import { type PlatformCrypto, SigningKey } from '../src/keys.js';
import { nodeCrypto } from '../src/node-crypto.js';
import { randomKey } from '../src/seal.js';
import type { SpaceView } from '../src/space/space-view.js';
import { InboxAhead } from '../src/sync/inbox-ahead.js';
import { encodeMessage } from '../src/sync/messages.js';
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

/** The part of a member's space view `verifyIncoming` reads: it holds nothing yet. */
const spaceWith = (keys: Uint8Array[]) =>
  ({ id: SPACE, keys, store: { hasVersion: () => false } }) as unknown as SpaceView;

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
    expect(await verifyIncoming(spaceWith([k1, k2]), all, undefined, opened)).toEqual(all);
  });

  it('refuses at their turn a body that opens under none of the space’s keys', async () => {
    const [k1, other] = [randomKey(), randomKey()];
    const good = await sealedUnder(k1, 20);
    const [stranger] = await sealedUnder(other, 1, 20);
    const all = [...good, stranger!];
    const opened = await startOpening(all, [k1]);
    expect(opened.has(stranger!)).toBe(false);
    expect(await errorCode(() => verifyIncoming(spaceWith([k1]), all, undefined, opened))).toBe(
      'invalid_version',
    );
  });

  it('starts with a vers message’s checks in the inbox, with the keys of its space', async () => {
    const key = randomKey();
    const versions = await sealedUnder(key, 20);
    const frame = encodeMessage({ t: 'vers', s: SPACE, v: versions.map((v) => v.bytes) });
    const withKeys = new InboxAhead(
      () => true,
      (space) => (space === SPACE ? [key] : undefined),
    ).arrived(frame);
    expect((await withKeys.early!.ahead!.opened).size).toBe(20);
    // A space not open here: its bodies are opened at their turn only.
    const closed = new InboxAhead(() => true).arrived(frame);
    expect((await closed.early!.ahead!.opened).size).toBe(0);
  });
});

describe('a node taking in vers messages', () => {
  it('opens each body once, those of the messages waiting while one is stored ahead', async () => {
    // Bodies opened on worker threads, counted.
    const platform = nodeCrypto(nodeCryptoModule, { workers: workerThreads, threads: 1 });
    const aead = platform.chacha20poly1305!;
    const opened = { bodies: 0 };
    const counted: PlatformCrypto = {
      ...platform,
      chacha20poly1305: {
        ...aead,
        async openSaltedMany(batch) {
          opened.bodies += batch.count;
          return aead.openSaltedMany!(batch);
        },
      },
    };
    const node = await make({ crypto: counted });
    const { key, space, spaceKey, p } = await pushingPeer(node);
    const versions = await posts(space, spaceKey, key, 1_200);
    opened.bodies = 0;
    for (let at = 0; at < versions.length; at += 100)
      p.raw(
        encodeMessage({ t: 'vers', s: space, v: versions.slice(at, at + 100).map((v) => v.bytes) }),
      );
    await waitFor(
      async () => (await node.spaces.status(space)).versions >= 1_200,
      30_000,
      'every pushed version stored',
    );
    expect(p.peer.endReason).toBeUndefined();
    // Each opened once: ahead of its turn, or at it.
    expect(opened.bodies).toBe(1_200);
  });
});
