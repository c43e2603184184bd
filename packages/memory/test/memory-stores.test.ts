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
