// Issue 14's first Must show, with real `minca` processes: a copy of a data folder, on a
// "machine" with none of the owner's device state (another HOME, so another local state) and
// without the recovery passphrase, yields no key and no plaintext, opens nothing, and nothing
// written into it — versions forged as the owner's or a stranger's — stands for the owner once
// the copy is carried back into the owner's folder.
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createVersion, decodeStrict, encodeCbor, randomKey, SigningKey } from '@minca/core';
import { describe, expect, it } from 'vitest';
import { filesUnder } from './folder-files.ts';
import { homesForFile, minca, mincaJson } from './minca.ts';

const [owner, thief] = await homesForFile(['owner', 'thief']);
const PASSPHRASE = 'correct horse battery staple';
const asOwner = { env: { MINCA_PASSPHRASE: PASSPHRASE } };

/** The space key an invite code carries (spec 05 §7.2): base64url of CBOR `{ k, … }`. */
function spaceKeyOf(code: string): Uint8Array {
  const bytes = Buffer.from(code.replace(/^minca-invite:/, ''), 'base64url');
  const invite = decodeStrict(new Uint8Array(bytes), { maxBytes: 1 << 20, maxDepth: 3 }) as {
    k: Uint8Array;
  };
  return invite.k;
}

/** A key file of the owner's device state: raw 32 bytes, or CBOR `{ k, c }` (device-state.ts). */
async function secretOf(path: string): Promise<Uint8Array> {
  const bytes = new Uint8Array(await readFile(path));
  if (bytes.length === 32) return bytes;
  return (decodeStrict(bytes, { maxBytes: 1 << 16, maxDepth: 1 }) as { k: Uint8Array }).k;
}

/** Writes a mirror segment (spec 05 §16.2) of `versions` into a folder's spaces/. */
async function forgeSegment(folder: string, space: string, versions: Uint8Array[]) {
  const writer = 'aaaaaaaaaaaaaaaaaaaaaaaaaa'.replace(
    /a/g,
    () => 'abcdefgh'[Math.floor(Math.random() * 8)]!,
  );
  const bytes = encodeCbor({ f: 1, s: space, w: writer, n: 0, v: versions });
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const dir = join(folder, 'spaces', space, writer);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `0000000000-${hash}.minca`), bytes);
  return join('spaces', space, writer, `0000000000-${hash}.minca`);
}

describe('a copy of a data folder', () => {
  it('gives nothing away, opens nothing, and nothing written into it stands', async () => {
    const pod = join(owner, 'pod');
    const made = await mincaJson<{ did: string; local: string }>(
      owner,
      ['init', '--folder', pod],
      asOwner,
    );
    const o = ['--home', pod];
    const space = (await mincaJson<{ id: string }>(owner, [...o, 'space', 'create'])).id;
    const marker = `plaintext-marker-${randomBytes(8).toString('hex')}`;
    const record = await mincaJson<{ id: string; version: string }>(owner, [
      ...o,
      'put',
      space,
      'app.post',
      JSON.stringify({ text: marker }),
    ]);
    await writeFile(join(owner, 'note.txt'), `${marker}\n`.repeat(1000));
    await mincaJson(owner, [...o, 'file', 'add', space, join(owner, 'note.txt')]);
    const { code } = await mincaJson<{ code: string }>(owner, [...o, 'space', 'invite', space]);
    const spaceKey = spaceKeyOf(code);

    // The copy, on another machine: a HOME of its own, so none of the owner's device state.
    const copy = join(thief, 'pod-copy');
    await cp(pod, copy, { recursive: true });
    const files = await filesUnder(copy);
    expect(files).toEqual(expect.arrayContaining(['account.json', 'recovery.minca']));
    expect(files.some((f) => f.startsWith('registry/'))).toBe(true);
    expect(files.some((f) => f.startsWith(`spaces/${space}/`))).toBe(true);
    expect(files.some((f) => f.startsWith(`spaces/files/${space}/`))).toBe(true);

    // No secret of the owner's, in any form, and no plaintext, in any file of the copy.
    const keys = [
      ['space key', spaceKey],
      ['root key', await secretOf(join(made.local, 'root.key'))],
      ['registry key', await secretOf(join(made.local, 'registry.key'))],
      ['device key', await secretOf(join(made.local, 'device.key'))],
      ['writer key', await secretOf(join(made.local, 'writer-keys', 'node.key'))],
    ] as const;
    const needles: Array<[string, Buffer]> = [
      ['plaintext', Buffer.from(marker)],
      ['passphrase', Buffer.from(PASSPHRASE)],
    ];
    for (const [name, key] of keys) {
      needles.push([name, Buffer.from(key)]);
      needles.push([`${name} (hex)`, Buffer.from(Buffer.from(key).toString('hex'))]);
      needles.push([`${name} (base64url)`, Buffer.from(Buffer.from(key).toString('base64url'))]);
    }
    for (const file of files) {
      const bytes = await readFile(join(copy, file));
      for (const [name, needle] of needles)
        expect(bytes.indexOf(needle), `${name} in ${file}`).toBe(-1);
    }

    // Opened there, it refuses every command, saying how a device of the account joins.
    const t = ['--home', copy];
    for (const args of [
      ['list', space, 'app.post'],
      ['get', space, 'app.post', record.id],
      ['space', 'list'],
      ['put', space, 'app.post', '{"text":"as the owner?"}'],
    ]) {
      const ran = await minca(thief, [...t, ...args]);
      expect(ran.code, args.join(' ')).toBe(3);
      expect(ran.stderr).toMatch(/this device holds no key for the account.*minca device join/);
      expect(ran.stdout).toBe('');
    }
    const wrong = await minca(thief, ['device', 'join', '--folder', copy, '--passphrase'], {
      env: { MINCA_PASSPHRASE: 'not the passphrase at all' },
    });
    expect(wrong.code).toBe(6);
    expect(wrong.stderr).toMatch(/does not open this folder's recovery file/);
    const noTerminal = await minca(thief, ['device', 'join', '--folder', copy, '--passphrase']);
    expect(noTerminal.code).toBe(2);
    expect(noTerminal.stderr).toMatch(/MINCA_PASSPHRASE/);
    const guessed = await minca(thief, ['device', 'join', '--folder', copy, '--timeout', '2'], {
      env: { MINCA_PAIRING_CODE: 'ABCD-EFGH-JKMN-PQRS' },
    });
    expect(guessed.code).toBe(5);
    expect((await minca(thief, [...t, 'space', 'list'])).code).toBe(3);

    // What the copy-holder writes into the copy: a stranger's account deleting the owner's
    // record, and versions claiming to be the owner's (signed with a key that is not), carried
    // back into the owner's folder as a sync service would.
    const stranger = SigningKey.generate();
    const draft = {
      space,
      collection: 'app.post',
      record: record.id,
      supersedes: [record.version],
      timestamp: Date.now(),
      files: [],
    };
    const tombstone = await createVersion({ ...draft, body: null }, randomKey(), stranger);
    const overwrite = await createVersion(
      { ...draft, body: { text: 'forged' } },
      randomKey(),
      stranger,
    );
    // A version naming the owner's DID as its author, signed by another key.
    const claimed = new Uint8Array(overwrite.bytes);
    const asOwnerBytes = Buffer.from(claimed).toString('latin1').replace(stranger.did, made.did);
    const forged = [
      await forgeSegment(copy, space, [tombstone.bytes]),
      await forgeSegment(copy, space, [overwrite.bytes]),
      await forgeSegment(copy, space, [new Uint8Array(Buffer.from(asOwnerBytes, 'latin1'))]),
    ];
    const before = await mincaJson<{ versions: number }>(owner, [...o, 'space', 'status', space]);
    for (const file of forged) await cp(join(copy, file), join(pod, file));

    const read = await minca(owner, ['--json', ...o, 'get', space, 'app.post', record.id]);
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout).body.text).toBe(marker);
    // The owner's device read the forged segments, refused them, and said so.
    for (const file of forged)
      expect(read.stderr).toContain(
        file
          .split('/')
          .slice(1)
          .join('/')
          .replace(/\.minca$/, ''),
      );
    const listed = await mincaJson<Array<{ body: { text: string } }>>(owner, [
      ...o,
      'list',
      space,
      'app.post',
    ]);
    expect(listed.map((r) => r.body.text)).toEqual([marker]);
    const after = await mincaJson<{ versions: number }>(owner, [...o, 'space', 'status', space]);
    expect(after.versions).toBe(before.versions);
  });
});
