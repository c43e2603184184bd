import { describe, expect, it } from 'vitest';
import { toHex } from '../src/bytes.js';
import { decodeStrict, encodeCbor } from '../src/encoding.js';
import { hashId } from '../src/ids.js';
import { verifyDetached } from '../src/intake.js';
import { SigningKey } from '../src/keys.js';
import { randomKey } from '../src/seal.js';
import {
  createVersion,
  createVersions,
  decodeVersion,
  MAX_FILES,
  openBody,
} from '../src/version.js';
import { drafts, errorCode } from './version-fixture.js';

/** Decodes a version from outside and checks its signature, as the intake does. */
const decodeVerifiedVersion = async (bytes: Uint8Array) => (await verifyDetached([bytes]))[0]!;

const key = SigningKey.generate();
const spaceKey = randomKey();
const draft = drafts({ record: 'r1' });
const code = errorCode;

describe('versions', () => {
  it('is content-addressed, signed and sealed', async () => {
    const v = await createVersion(draft(), spaceKey, key);
    expect(v.id).toBe(toHex(hashId(v.bytes)));
    expect(v.author).toBe(key.did);
    const back = await decodeVerifiedVersion(v.bytes);
    expect(back).toEqual(v);
    expect(openBody(back, spaceKey)).toEqual({ text: 'hello' });
    // The body is ciphertext: its text is nowhere in the envelope.
    expect(Buffer.from(v.bytes).includes(Buffer.from('hello'))).toBe(false);
  });

  it('gives each version made here as its bytes read back give it, alone or in a batch', async () => {
    const ids = ['ff'.repeat(32), '00'.repeat(32), 'ab'.repeat(32)];
    const made = [
      draft(),
      draft({ supersedes: ids, files: ids.slice(1) }),
      draft({ body: null, supersedes: ids.slice(0, 1) }),
      draft({ body: { n: 1, list: [1, 'two'] } }),
    ];
    for (const perSignature of [1, 2, 64]) {
      const versions = await createVersions(made, spaceKey, key, { perSignature });
      for (const v of versions) expect(v).toEqual(decodeVersion(v.bytes));
    }
    const alone = await createVersion(made[1]!, spaceKey, key);
    expect(alone).toEqual(decodeVersion(alone.bytes));
  });

  it('sorts and de-duplicates what it supersedes and names', async () => {
    const ids = ['ff'.repeat(32), '00'.repeat(32), 'ff'.repeat(32)];
    const v = await createVersion(draft({ supersedes: ids, files: ids }), spaceKey, key);
    expect(v.supersedes).toEqual(['00'.repeat(32), 'ff'.repeat(32)]);
    expect(v.files).toEqual(v.supersedes);
  });

  it('rejects every single-byte change', async () => {
    const v = await createVersion(draft(), spaceKey, key);
    for (let i = 0; i < v.bytes.length; i++) {
      const bytes = v.bytes.slice();
      bytes[i]! ^= 0x01;
      expect(['malformed', 'invalid_version']).toContain(
        await code(() => decodeVerifiedVersion(bytes)),
      );
    }
  });

  it('rejects a version re-signed by someone else, or re-encoded', async () => {
    const v = await createVersion(draft(), spaceKey, key);
    const fields = decodeStrict(v.bytes) as Record<string, unknown>;
    const forged = encodeCbor({ ...fields, a: SigningKey.generate().did });
    expect(await code(() => decodeVerifiedVersion(forged))).toBe('invalid_version');
    // The same map with a field in a longer integer form.
    const long = v.bytes.slice();
    expect(await code(() => decodeVersion(new Uint8Array([...long, 0])))).toBe('malformed');
  });

  it('does not open under another key or in another place', async () => {
    const v = await createVersion(draft(), spaceKey, key);
    expect(await code(() => openBody(v, randomKey()))).toBe('invalid_version');
    // The sealed body moved to another record does not open there.
    const moved = await createVersion(draft({ record: 'r2' }), spaceKey, key);
    expect(await code(() => openBody({ ...moved, sealedBody: v.sealedBody }, spaceKey))).toBe(
      'invalid_version',
    );
  });

  it('holds tombstones and limits files', async () => {
    const tomb = await createVersion(draft({ body: null }), spaceKey, key);
    expect(tomb.sealedBody).toBeNull();
    expect(openBody(tomb, spaceKey)).toBeNull();
    const files = Array.from({ length: MAX_FILES + 1 }, (_, i) => i.toString(16).padStart(64, '0'));
    expect(await code(() => createVersion(draft({ files }), spaceKey, key))).toBe('too_large');
  });

  it('opens bodies the same after one whose header outgrew the buffers it is bound in', async () => {
    // 64 superseded ids: a header of over 2 KiB, then small ones again.
    const supersedes = Array.from({ length: 64 }, (_, i) => i.toString(16).padStart(64, '0'));
    const big = await createVersion(draft({ supersedes, body: { text: 'big' } }), spaceKey, key);
    const small = await createVersion(draft({ body: { text: 'small' } }), spaceKey, key);
    for (const v of [small, big, small, big]) {
      expect(openBody(v, spaceKey)).toEqual({ text: v === big ? 'big' : 'small' });
      expect(await code(() => openBody(v, randomKey()))).toBe('invalid_version');
    }
    // Each still opens only where it was sealed.
    expect(await code(() => openBody({ ...small, sealedBody: big.sealedBody }, spaceKey))).toBe(
      'invalid_version',
    );
  });
});
