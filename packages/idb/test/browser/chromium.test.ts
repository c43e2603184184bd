import { isMincaError } from '@minca/core';
import { describe, expect, it } from 'vitest';
import { indexedDBStores } from '../../src/index.ts';
import { deleteDatabases } from './databases.ts';

const id = 'cd'.repeat(32);

function fresh(): string {
  return `minca-test-${crypto.randomUUID()}`;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

describe('in Chromium', () => {
  it('a value the browser cannot clone fails the whole write, losing nothing stored', async () => {
    const prefix = fresh();
    const store = await indexedDBStores(prefix).open('registry');
    try {
      await store.batch([{ key: 'kept', value: new Uint8Array([1, 2, 3]) }]);
      // A view over a transferred (detached) buffer: the clone inside put() throws.
      const buffer = new ArrayBuffer(8);
      const detached = new Uint8Array(buffer);
      structuredClone(buffer, { transfer: [buffer] });
      const failure = await store.commit!({
        versions: [[id, new Uint8Array([9])]],
        entries: [
          { key: 'kept', value: undefined },
          { key: 'detached', value: detached },
        ],
        deleteVersions: [],
      }).catch((error: unknown) => error);
      expect(isMincaError(failure, 'storage'), String(failure)).toBe(true);
      expect(((failure as Error).cause as DOMException).name).toBe('DataCloneError');
      expect(await store.list('')).toEqual(['kept']);
      expect(await store.getVersion(id)).toBeUndefined();
    } finally {
      await store.close!();
      await deleteDatabases(prefix);
    }
  });

  it('another tab deleting the database closes the store instead of blocking it', async () => {
    const prefix = fresh();
    const store = await indexedDBStores(prefix).open('spaces/s1');
    await store.batch([{ key: 'k', value: new Uint8Array([1]) }]);
    await request(indexedDB.deleteDatabase(`${prefix}:spaces:s1`));
    const error = await store.get('k').catch((e: unknown) => e);
    expect(isMincaError(error, 'closed'), String(error)).toBe(true);
  });

  it('opening a database made at an earlier version empties it', async () => {
    const prefix = fresh();
    const name = `${prefix}:registry`;
    const open = indexedDB.open(name, 3);
    open.onupgradeneeded = () => open.result.createObjectStore('kv').put(new ArrayBuffer(1), 'old');
    (await request(open)).close();
    const store = await indexedDBStores(prefix).open('registry');
    expect(await store.list('')).toEqual([]);
    await store.close!();
    const databases = await indexedDB.databases();
    expect(databases.find((d) => d.name === name)?.version).toBe(4);
    await deleteDatabases(prefix);
  });
});
