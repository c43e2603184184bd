import { createNode, type MincaRecord, SigningKey } from '@minca/core';
import { TestAccount } from '@minca/core/testing';
import { memoryStores } from '@minca/memory';
import { rgbaToThumbHash } from 'thumbhash';
import { describe, expect, it } from 'vitest';
import {
  addImage,
  imageBody,
  listProfiles,
  PROFILES,
  placeholderUrl,
  profileBody,
  profileId,
  putProfile,
  readImage,
  readProfile,
  writerAccounts,
} from '../src/index.ts';

const ref = (fill = 1) => ({
  $file: fill.toString(16).padStart(2, '0').repeat(32),
  key: new Uint8Array(32).fill(fill),
  size: 1000,
});
/** A real ThumbHash of a 4 × 3 red picture. */
const hash = rgbaToThumbHash(
  4,
  3,
  new Uint8Array(4 * 3 * 4).map((_, i) => (i % 4 === 0 || i % 4 === 3 ? 255 : 0)),
);
const image = { mime: 'image/png', width: 1200, height: 800, file: ref(), placeholder: hash };

describe('std.image', () => {
  it('reads a valid picture, keeping what it knows and leaving the rest', () => {
    expect(readImage({ ...image, later: 'a field of a later version' })).toEqual(image);
    const full = { ...image, thumbnail: ref(2), alt: 'A red square' };
    expect(readImage(full)).toEqual(full);
    expect(readImage({ mime: 'image/jpeg', width: 1, height: 1, file: ref() })).toEqual({
      mime: 'image/jpeg',
      width: 1,
      height: 1,
      file: ref(),
    });
  });

  it('refuses what is not one, field by field', () => {
    const bad: unknown[] = [
      null,
      'image',
      [image],
      { ...image, mime: 'text/html' },
      { ...image, mime: 'image/' },
      { ...image, width: 0 },
      { ...image, height: 1.5 },
      { ...image, width: 70_000 },
      { ...image, file: { $file: 'x', key: new Uint8Array(32), size: 1 } },
      { ...image, file: undefined },
      { ...image, placeholder: 'a string' },
      { ...image, placeholder: new Uint8Array(65) },
      { ...image, placeholder: new Uint8Array(2) },
      { ...image, thumbnail: new Uint8Array(10) },
      { ...image, alt: 'x'.repeat(1001) },
      { ...image, alt: 3 },
    ];
    for (const value of bad) expect(readImage(value), JSON.stringify(value)).toBeUndefined();
    expect(() => imageBody({ ...image, width: -1 })).toThrow(TypeError);
  });

  it('gives its placeholder as a PNG data URL, and none for bytes that are not one', () => {
    expect(placeholderUrl(image)).toMatch(/^data:image\/png;base64,/);
    expect(placeholderUrl({})).toBeUndefined();
  });
});

const record = (over: Partial<MincaRecord>): MincaRecord => ({
  id: 'z6MkAuthor',
  collection: PROFILES,
  body: { name: 'Ada' },
  version: '00'.repeat(32),
  timestamp: 1,
  author: 'did:key:z6MkAuthor',
  files: [],
  conflicts: [],
  ...over,
});

describe('std.profile', () => {
  it('counts only when its author is the person its id names', () => {
    expect(readProfile(record({}))).toEqual({ did: 'did:key:z6MkAuthor', name: 'Ada' });
    expect(readProfile(record({ author: 'did:key:z6MkSomeoneElse' }))).toBeUndefined();
    expect(readProfile(record({ collection: 'app.profile' }))).toBeUndefined();
  });

  it('needs a name of 1 to 80 characters; an avatar that is not a std.image is left out', () => {
    for (const body of [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(81) },
      { name: 5 },
      'Ada',
    ]) {
      expect(readProfile(record({ body: body as never })), JSON.stringify(body)).toBeUndefined();
    }
    expect(
      readProfile(record({ body: { name: ' Ada ', avatar: { mime: 'text/plain' } } })),
    ).toEqual({
      did: 'did:key:z6MkAuthor',
      name: 'Ada',
    });
    expect(() => profileBody({ name: ' ' })).toThrow(TypeError);
    expect(() => profileId('z6Mk')).toThrow(TypeError);
  });

  it("a node writes its own, with an avatar in a file, and reads everyone's back", async () => {
    const node = await createNode({ stores: memoryStores() });
    const space = await node.spaces.create();
    const bytes = new Uint8Array(3000).map((_, i) => i % 251);
    const avatar = await addImage(
      node,
      space.id,
      {
        mime: 'image/jpeg',
        width: 256,
        height: 200,
        bytes,
        placeholder: hash,
        thumbnail: bytes.subarray(0, 100),
      },
      'me.jpg',
    );
    expect(avatar.file.size).toBe(3000);
    expect(avatar.thumbnail?.size).toBe(100);
    const mine = await putProfile(node, space.id, { name: 'Ada', avatar });
    expect(mine).toEqual({ did: node.did, name: 'Ada', avatar });
    const profiles = await listProfiles(node, space.id);
    expect([...profiles.keys()]).toEqual([node.did]);
    const read = profiles.get(node.did)!.avatar!;
    expect(await node.records.readFile(space.id, read.file)).toEqual(bytes);
    expect((await node.records.get(space.id, PROFILES, profileId(node.did)))?.files.length).toBe(2);
    await node.close();
  });
});

describe('writers and their accounts', () => {
  /** A node of `root`'s account: a writer key certified by a device the root certified. */
  async function accountNode(root: SigningKey) {
    return createNode({ stores: memoryStores(), ...(await new TestAccount(root).node()) });
  }

  it("a profile written by an account's writer key is the account's", async () => {
    const root = SigningKey.generate();
    const node = await accountNode(root);
    expect(node.writer).not.toBe(node.did);
    const space = await node.spaces.create();
    const mine = await putProfile(node, space.id, { name: 'Ada' });
    expect(mine).toEqual({ did: root.did, name: 'Ada' });
    expect(await writerAccounts(node, space.id)).toEqual(new Map([[node.writer, root.did]]));
    expect([...(await listProfiles(node, space.id)).values()]).toEqual([
      { did: root.did, name: 'Ada' },
    ]);
    // Without the writer's account, the record is not the profile of the DID it names.
    const record = (await node.records.get(space.id, PROFILES, profileId(root.did)))!;
    expect(record.author).toBe(node.writer);
    expect(readProfile(record)).toBeUndefined();
    await node.close();
  });
});
