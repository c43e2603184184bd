import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/bytes.ts';
import { randomId } from '../../src/ids.ts';
import { SigningKey } from '../../src/keys.ts';
import { randomKey } from '../../src/seal.ts';
import { Store } from '../../src/store.ts';
import { createVersion } from '../../src/version.ts';
import { fakeStores } from '../fake-adapter.ts';

const key = SigningKey.generate();
const space = randomId();
const version = (record: string) =>
  createVersion(
    {
      space,
      collection: 'app.post',
      record,
      supersedes: [],
      timestamp: 1,
      files: [],
      body: { record },
    },
    randomKey(),
    key,
  );

describe('Store.getVersionBytes (what a mirror packs)', () => {
  it('gives the bytes as stored, from a fresh store too, undefined where missing', async () => {
    const stores = fakeStores();
    const [a, b] = [await version('a'), await version('b')];
    const store = await Store.open(await stores.open('s'));
    await store.commit({ versions: [a, b] });
    const missing = '00'.repeat(32);
    const check = async (s: Store) => {
      const got = await s.getVersionBytes([b.id, missing, a.id]);
      expect(got.map((x) => x && toHex(x))).toEqual([toHex(b.bytes), undefined, toHex(a.bytes)]);
    };
    await check(store);
    await store.close();
    await check(await Store.open(await stores.open('s'))); // read from the adapter
  });

  it('a body that does not hash to its id is corrupt', async () => {
    const stores = fakeStores();
    const v = await version('a');
    const adapter = await stores.open('s');
    const store = await Store.open(adapter);
    await store.commit({ versions: [v] });
    await store.close();
    const damaged = v.bytes.slice();
    damaged[damaged.length - 1]! ^= 1;
    const reopened = await stores.open('s');
    await reopened.putVersion(v.id, damaged);
    await expect((await Store.open(reopened)).getVersionBytes([v.id])).rejects.toMatchObject({
      code: 'corrupt',
    });
  });
});
