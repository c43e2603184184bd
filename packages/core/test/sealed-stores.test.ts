import { describe, expect, it } from 'vitest';
import type { StoreFactory } from '../src/adapter.ts';
import { isMincaError } from '../src/errors.ts';
import { randomKey } from '../src/seal.ts';
import { sealedStores } from '../src/sealed-stores.ts';
import { runStorageAdapterTests } from '../src/testing/index.ts';
import { fakeStores } from './fake-adapter.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const id = (n: number) => n.toString(16).padStart(64, '0');

runStorageAdapterTests('sealedStores over a fake, required methods only', async () => ({
  factory: sealedStores(fakeStores(), randomKey()),
}));
runStorageAdapterTests('sealedStores over a fake with optional methods', async () => ({
  factory: sealedStores(fakeStores({ optional: true }), randomKey()),
}));

async function expectCorrupt(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isMincaError(error, 'corrupt'), String(error)).toBe(true);
}

/** A sealed factory, and the inner stores it writes to, to look at and tamper with. */
async function setup(path = 'spaces/a') {
  const inner = fakeStores({ optional: true });
  const key = randomKey();
  const sealed = sealedStores(inner, key);
  return { inner, key, sealed, store: await sealed.open(path), raw: await inner.open(path) };
}

describe('sealedStores', () => {
  it('keeps no plaintext key, value, body or version id in the inner store', async () => {
    const { store, raw } = await setup();
    const secret = 'secret-collection';
    await store.batch([{ key: `v/${secret}/${id(7)}`, value: bytes('plain value here') }]);
    await store.putVersion(id(7), bytes('plain body here'));
    const [innerKey] = await raw.list('');
    expect(innerKey).toBeDefined();
    expect(innerKey).not.toContain(secret);
    expect(innerKey).not.toContain(id(7));
    expect(innerKey!.split('/')).toHaveLength(3); // the parts stay parts
    const value = await raw.get(innerKey!);
    expect(new TextDecoder().decode(value)).not.toContain('plain value');
    expect(await raw.getVersion(id(7))).toBeUndefined(); // the id is hashed
  });

  it('lists a partial last part by listing its parent and filtering', async () => {
    const { store } = await setup();
    const keys = ['mirror:known:aa', 'mirror:known:ab', 'mirror:read:x', 'mirror:writer', 'v/a/b'];
    await store.batch(keys.map((key) => ({ key, value: bytes(key) })));
    expect(await store.list('mirror:known:')).toEqual(['mirror:known:aa', 'mirror:known:ab']);
    expect(await store.list('v/a/')).toEqual(['v/a/b']);
    expect(await store.list('\ud83d/')).toEqual([]);
    expect(await store.get('\ud83d')).toBeUndefined();
  });

  it('refuses keys with a lone surrogate and bad arguments, writing nothing', async () => {
    const { store } = await setup();
    await expect(
      store.batch([
        { key: 'ok', value: bytes('1') },
        { key: 'a\ud800', value: bytes('2') },
      ]),
    ).rejects.toThrow(TypeError);
    await expect(store.putVersion(id(1), 'body' as unknown as Uint8Array)).rejects.toThrow(
      TypeError,
    );
    expect(await store.list('')).toEqual([]);
    expect(() => sealedStores(fakeStores(), new Uint8Array(16))).toThrow(TypeError);
  });

  it('a tampered value is corrupt, and the rest still reads', async () => {
    const { store, raw } = await setup();
    await store.batch([{ key: 'a', value: bytes('A') }]);
    const [innerA] = await raw.list('');
    await store.batch([{ key: 'b', value: bytes('B') }]);
    await store.putVersion(id(1), bytes('body'));
    const sealedA = (await raw.get(innerA!))!;
    sealedA[sealedA.length - 1]! ^= 1;
    await raw.batch([{ key: innerA!, value: sealedA }]);
    await expectCorrupt(store.get('a'));
    await expectCorrupt(store.entries!(''));
    expect(await store.get('b')).toEqual(bytes('B'));
    expect(await store.getVersion(id(1))).toEqual(bytes('body'));
    await raw.batch([{ key: innerA!, value: new Uint8Array(3) }]);
    await expectCorrupt(store.get('a'));
  });

  it('a value moved to another key is corrupt', async () => {
    const { store, raw } = await setup();
    await store.batch([
      { key: 'a', value: bytes('A') },
      { key: 'b', value: bytes('B') },
    ]);
    const listed = await raw.list('');
    const values = await Promise.all(listed.map((k) => raw.get(k)));
    // Swap the two sealed values between their keys.
    await raw.batch([
      { key: listed[0]!, value: values[1] },
      { key: listed[1]!, value: values[0] },
    ]);
    await expectCorrupt(store.get('a'));
    await expectCorrupt(store.get('b'));
  });

  it('a value moved to another store, or read under another key, is corrupt', async () => {
    const inner = fakeStores();
    const key = randomKey();
    const a = await sealedStores(inner, key).open('spaces/a');
    await a.batch([{ key: 'k', value: bytes('A') }]);
    await a.putVersion(id(1), bytes('body'));
    // The same inner bytes copied under spaces/b: keys there are sealed differently, so copy raw.
    const rawA = await inner.open('spaces/a');
    const rawB = await inner.open('spaces/b');
    for (const k of await rawA.list('')) await rawB.batch([{ key: k, value: await rawA.get(k) }]);
    const b = await sealedStores(inner, key).open('spaces/b');
    await expectCorrupt(b.list('')); // keys are bound to their store too
    const other = await sealedStores(inner, randomKey()).open('spaces/a');
    await expectCorrupt(other.list(''));
    expect(await other.get('k')).toBeUndefined(); // another key seals 'k' to another name
    expect(await other.getVersion(id(1))).toBeUndefined();
  });

  it('an inner key that is not sealed is corrupt when listed', async () => {
    const { store, raw } = await setup();
    await raw.batch([{ key: 'plain/key', value: bytes('x') }]);
    await expectCorrupt(store.list(''));
    await store.batch([{ key: 'v/a/b', value: bytes('x') }]);
    expect(await store.list('v/a/')).toEqual(['v/a/b']); // a listing under a prefix never meets it
    await raw.batch([
      { key: 'plain/key', value: undefined },
      { key: 'AAAA', value: bytes('x') },
    ]);
    await expectCorrupt(store.list(''));
  });

  it('a body swapped between ids in the inner store is corrupt', async () => {
    const inner = fakeStores();
    const innerIds: string[] = [];
    const logging: StoreFactory = {
      open: async (path) => {
        const a = await inner.open(path);
        const putVersion = async (v: string, body: Uint8Array) => {
          innerIds.push(v);
          await a.putVersion(v, body);
        };
        return { ...a, putVersion };
      },
    };
    const store = await sealedStores(logging, randomKey()).open('spaces/a');
    await store.putVersion(id(1), bytes('one'));
    await store.putVersion(id(2), bytes('two'));
    expect(innerIds).toHaveLength(2);
    for (const innerId of innerIds) expect(innerId).toMatch(/^[0-9a-f]{64}$/);
    expect(innerIds).not.toContain(id(1));
    const raw = await inner.open('spaces/a');
    const [one, two] = await Promise.all(innerIds.map((v) => raw.getVersion(v)));
    await raw.putVersion(innerIds[0]!, two!);
    await raw.putVersion(innerIds[1]!, one!);
    await expectCorrupt(store.getVersion(id(1)));
    await expectCorrupt(store.getVersions!([id(2)]));
  });

  it('passes the inner body cache through, and close to the inner factory', async () => {
    let closed = 0;
    const cache = new Map<string, Uint8Array>();
    const inner = {
      ...fakeStores(),
      bodyCache: {
        get: (k: string) => cache.get(k),
        set: (k: string, v: Uint8Array) => void cache.set(k, v),
        delete: (k: string) => void cache.delete(k),
      },
      close: async () => void closed++,
    };
    const sealed = sealedStores(inner, randomKey());
    expect(sealed.bodyCache).toBe(inner.bodyCache);
    await sealed.close!();
    expect(closed).toBe(1);
  });
});
