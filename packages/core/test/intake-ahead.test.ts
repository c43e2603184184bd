// Bodies opened ahead of their turn (spec 05 §8 "Taking versions in"): what opened then is not
// opened again; what did not is opened at its turn under the keys the space has then, and one
// that opens under none of them is refused as ever.
import { describe, expect, it } from 'vitest';
import { startOpening, verifyIncoming } from '../src/intake.js';
import { SigningKey } from '../src/keys.js';
import { randomKey } from '../src/seal.js';
import type { SpaceView } from '../src/space/space-view.js';
import { InboxAhead } from '../src/sync/inbox-ahead.js';
import { encodeMessage } from '../src/sync/messages.js';
import { createVersions } from '../src/version.js';
import { errorCode } from './error-code.js';

const SPACE = 'a'.repeat(26);
const author = SigningKey.generate();

/** `count` versions of `app.post` in {@link SPACE}, their bodies sealed under `key`. */
const posts = (key: Uint8Array, count: number, from = 0) =>
  createVersions(
    Array.from({ length: count }, (_, i) => ({
      space: SPACE,
      collection: 'app.post',
      record: `r${from + i}`,
      supersedes: [],
      timestamp: 1_700_000_000_000 + from + i,
      files: [],
      body: { i: from + i },
    })),
    key,
    author,
  );

/** The part of a member's space view `verifyIncoming` reads: it holds nothing yet. */
const spaceWith = (keys: Uint8Array[]) =>
  ({ id: SPACE, keys, store: { hasVersion: () => false } }) as unknown as SpaceView;

describe('opening bodies ahead', () => {
  it('gives the versions whose bodies opened under the keys given, and never rejects', async () => {
    const [k1, k2] = [randomKey(), randomKey()];
    // 20 and 3: openings many at once, and few enough to open one by one.
    for (const count of [20, 3]) {
      const under1 = await posts(k1, count);
      const under2 = await posts(k2, count, count);
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
    const under1 = await posts(k1, 20);
    const under2 = await posts(k2, 20, 20);
    const all = [...under1, ...under2];
    // Ahead, the space had only k1; at their turn, k2 too (a key change came in between).
    const opened = await startOpening(all, [k1]);
    expect(opened.size).toBe(20);
    expect(await verifyIncoming(spaceWith([k1, k2]), all, undefined, opened)).toEqual(all);
  });

  it('refuses at their turn a body that opens under none of the space’s keys', async () => {
    const [k1, other] = [randomKey(), randomKey()];
    const good = await posts(k1, 20);
    const [stranger] = await posts(other, 1, 20);
    const all = [...good, stranger!];
    const opened = await startOpening(all, [k1]);
    expect(opened.has(stranger!)).toBe(false);
    expect(await errorCode(() => verifyIncoming(spaceWith([k1]), all, undefined, opened))).toBe(
      'invalid_version',
    );
  });

  it('starts with a vers message’s checks in the inbox, with the keys of its space', async () => {
    const key = randomKey();
    const versions = await posts(key, 20);
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
