import { isMincaError, LruBodyCache } from '@minca/core';
import { describe, expect, it } from 'vitest';
import { createMemoryBlobStore, memoryStores } from '../src/index.ts';

const id = 'ab'.repeat(32);

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return isMincaError(error) ? error.code : undefined;
}

describe('memoryStores', () => {
  it('a closed store is closed, and its data waits for the next open', async () => {
    const stores = memoryStores();
    const store = await stores.open('spaces/a');
    await store.batch([{ key: 'k', value: new Uint8Array([1]) }]);
    await store.close!();
    expect(await codeOf(store.get('k'))).toBe('closed');
    expect(await codeOf(store.batch([]))).toBe('closed');
    expect(await (await stores.open('spaces/a')).get('k')).toEqual(new Uint8Array([1]));
  });

  it('a closed factory opens nothing', async () => {
    const stores = memoryStores();
    await stores.close!();
    expect(await codeOf(stores.open('spaces/a'))).toBe('closed');
  });

  it('refuses paths outside the grammar', async () => {
    const stores = memoryStores();
    for (const path of ['', '/a', 'a/', 'a//b', 'a b', 'é', 'a:b']) {
      expect(await codeOf(stores.open(path)), path).toBe('invalid_name');
    }
  });

  it('refuses bad writes and ids with TypeError, writing nothing', async () => {
    const store = await memoryStores().open('registry');
    const bad = { key: 'b', value: [1] as unknown as Uint8Array };
    await expect(store.batch([{ key: 'a', value: new Uint8Array() }, bad])).rejects.toThrow(
      TypeError,
    );
    await expect(store.putVersion('not-hex', new Uint8Array())).rejects.toThrow(TypeError);
    await expect(store.putVersion(id.toUpperCase(), new Uint8Array())).rejects.toThrow(TypeError);
    await expect(
      store.commit!({ versions: [[id, new Uint8Array()]], entries: [bad], deleteVersions: [] }),
    ).rejects.toThrow(TypeError);
    expect(await store.list('')).toEqual([]);
    expect(await store.getVersion(id)).toBeUndefined();
  });

  it('shares the body cache it was given', () => {
    const bodyCache = new LruBodyCache(10);
    expect(memoryStores({ bodyCache }).bodyCache).toBe(bodyCache);
    expect(memoryStores().bodyCache).toBeUndefined();
  });
});

describe('createMemoryBlobStore', () => {
  it('refuses bytes that are not a Uint8Array', async () => {
    const store = createMemoryBlobStore();
    await expect(store.put('a', 'text' as unknown as Uint8Array)).rejects.toThrow(TypeError);
    expect(await store.get('a')).toBeNull();
  });
});

describe('a memory store’s keys under many writes', () => {
  it('lists what a sorted map would, through puts, deletes and puts again, read or not in between', async () => {
    const store = await memoryStores().open('spaces/keys');
    const model = new Map<string, number>();
    // A fixed sequence from a small generator, so a failure shows again.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const keyOf = (n: number) => `${['a', 'b', 'ab'][n % 3]}/${n.toString(36)}`;
    for (let round = 0; round < 300; round++) {
      const writes = Array.from({ length: 1 + next(40) }, () => {
        const key = keyOf(next(3000));
        const value = next(5) === 0 ? undefined : new Uint8Array([round % 256]);
        return { key, value };
      });
      await store.batch(writes);
      for (const { key, value } of writes) {
        if (value) model.set(key, value[0]!);
        else model.delete(key);
      }
      if (next(4) !== 0) continue; // Most rounds write without reading between.
      for (const prefix of ['', 'a', 'a/', 'ab/', 'b/', 'c']) {
        const expected = [...model.keys()].filter((k) => k.startsWith(prefix)).sort();
        expect(await store.list(prefix)).toEqual(expected);
        expect(await store.count!(prefix)).toBe(expected.length);
      }
      const entries = await store.entries!('b/');
      expect(entries.map(([k, v]) => [k, v[0]])).toEqual(
        [...model].filter(([k]) => k.startsWith('b/')).sort(([x], [y]) => (x < y ? -1 : 1)),
      );
    }
  });
});
