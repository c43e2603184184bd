import 'fake-indexeddb/auto';
import { isMincaError, LruBodyCache, type MincaErrorCode } from '@minca/core';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { DATABASE_VERSION, indexedDBStores } from '../src/index.ts';
import { prefixRange } from '../src/prefix-range.ts';

const id = 'ab'.repeat(32);
const bytes = (...values: number[]) => new Uint8Array(values);

async function codeOf(promise: Promise<unknown>): Promise<MincaErrorCode | 'resolved' | 'other'> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error === undefined) return 'resolved';
  return isMincaError(error) ? error.code : 'other';
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Opens `name` at `version` with raw IndexedDB, creating `stores` with `seed` entries in each. */
function rawOpen(
  factory: IDBFactory,
  name: string,
  version: number,
  stores: string[] = [],
  seed: Record<string, unknown> = {},
): Promise<IDBDatabase> {
  const req = factory.open(name, version);
  req.onupgradeneeded = () => {
    for (const store of stores) {
      const created = req.result.createObjectStore(store);
      for (const [key, value] of Object.entries(seed)) created.put(value, key);
    }
  };
  return request(req);
}

async function rawKeys(db: IDBDatabase, store: string): Promise<IDBValidKey[]> {
  return request(db.transaction(store).objectStore(store).getAllKeys());
}

describe('naming', () => {
  it('names each database <prefix>:<path> with / turned into :, at version 4', async () => {
    const indexedDB = new IDBFactory();
    const stores = indexedDBStores('minca:accounts:k3x9q2:stores', { indexedDB });
    for (const path of ['spaces/s1', 'registry', 'a/b', 'a.b', 'mirrors/s1/0']) {
      await (await stores.open(path)).close!();
    }
    const names = (await indexedDB.databases()).map(({ name, version }) => `${name}@${version}`);
    expect(names.sort()).toEqual(
      [
        'minca:accounts:k3x9q2:stores:a.b',
        'minca:accounts:k3x9q2:stores:a:b',
        'minca:accounts:k3x9q2:stores:mirrors:s1:0',
        'minca:accounts:k3x9q2:stores:registry',
        'minca:accounts:k3x9q2:stores:spaces:s1',
      ].map((name) => `${name}@4`),
    );
    expect(DATABASE_VERSION).toBe(4);
    const db = await rawOpen(indexedDB, 'minca:accounts:k3x9q2:stores:spaces:s1', 4);
    expect(Array.from(db.objectStoreNames).sort()).toEqual(['kv', 'versions']);
    db.close();
  });

  it('two prefixes keep apart, and a DID prefix is fine', async () => {
    const indexedDB = new IDBFactory();
    const app = await indexedDBStores('minca-app:did:key:z6Mk', { indexedDB }).open('registry');
    const pod = await indexedDBStores('minca-pod:home', { indexedDB }).open('registry');
    await app.batch([{ key: 'k', value: bytes(1) }]);
    expect(await pod.get('k')).toBeUndefined();
    expect((await indexedDB.databases()).map((d) => d.name).sort()).toEqual([
      'minca-app:did:key:z6Mk:registry',
      'minca-pod:home:registry',
    ]);
  });

  it('refuses paths outside the grammar, creating nothing', async () => {
    const indexedDB = new IDBFactory();
    const stores = indexedDBStores('minca', { indexedDB });
    for (const path of ['', '/a', 'a/', 'a//b', 'a b', 'é', 'a:b', 7 as unknown as string]) {
      expect(await codeOf(stores.open(path)), String(path)).toBe('invalid_name');
    }
    expect(await indexedDB.databases()).toEqual([]);
  });

  it('refuses a prefix that is not a non-empty string', () => {
    const indexedDB = new IDBFactory();
    expect(() => indexedDBStores(3 as unknown as string, { indexedDB })).toThrow(TypeError);
    expect(() => indexedDBStores('', { indexedDB })).toThrow(RangeError);
  });
});

describe('without IndexedDB', () => {
  it('is a storage error naming what is missing', () => {
    const scope = globalThis as { indexedDB?: IDBFactory; IDBRequest?: unknown };
    const { indexedDB, IDBRequest } = scope;
    try {
      delete scope.indexedDB;
      expect(() => indexedDBStores('minca')).toThrow(/no indexedDB/);
      expect(
        isMincaError(
          catching(() => indexedDBStores('minca')),
          'storage',
        ),
      ).toBe(true);
      delete scope.IDBRequest;
      expect(() => indexedDBStores('minca', { indexedDB: new IDBFactory() })).toThrow(
        /no IDBRequest/,
      );
    } finally {
      scope.indexedDB = indexedDB;
      scope.IDBRequest = IDBRequest;
    }
  });
});

function catching(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('versions of the database', () => {
  it('opening a database made at an earlier version empties it', async () => {
    const indexedDB = new IDBFactory();
    const name = 'minca:spaces:s1';
    for (const old of [1, 3]) {
      const db = await rawOpen(indexedDB, name, old, ['kv', 'versions', 'legacy'], { k: 'v' });
      db.close();
      const store = await indexedDBStores('minca', { indexedDB }).open('spaces/s1');
      expect(await store.list('')).toEqual([]);
      expect(await store.getVersion(id)).toBeUndefined();
      await store.batch([{ key: 'new', value: bytes(4) }]);
      await store.close!();
      const after = await rawOpen(indexedDB, name, 4);
      expect(Array.from(after.objectStoreNames).sort()).toEqual(['kv', 'versions']);
      expect(await rawKeys(after, 'kv')).toEqual(['new']);
      after.close();
      await request(indexedDB.deleteDatabase(name));
    }
  });

  it('a database at a newer version is refused and left as it is', async () => {
    const indexedDB = new IDBFactory();
    const db = await rawOpen(indexedDB, 'minca:registry', 5, ['kv'], { kept: 'yes' });
    db.close();
    const error = await indexedDBStores('minca', { indexedDB })
      .open('registry')
      .catch((e: unknown) => e);
    expect(isMincaError(error, 'storage')).toBe(true);
    expect((error as Error).message).toMatch(/newer version/);
    expect(((error as Error).cause as Error).name).toBe('VersionError');
    const again = await rawOpen(indexedDB, 'minca:registry', 5);
    expect(await rawKeys(again, 'kv')).toEqual(['kept']);
    again.close();
  });

  it('an open blocked by an older connection elsewhere fails instead of hanging', async () => {
    const indexedDB = new IDBFactory();
    // Another tab on an older minca: it holds version 3 open and ignores versionchange.
    const old = await rawOpen(indexedDB, 'minca:registry', 3, ['kv'], { k: 'v' });
    const error = await indexedDBStores('minca', { indexedDB })
      .open('registry')
      .catch((e: unknown) => e);
    expect(isMincaError(error, 'storage')).toBe(true);
    expect((error as Error).message).toMatch(/earlier version elsewhere/);
    expect(await rawKeys(old, 'kv')).toEqual(['k']);
    old.close();
    // The pending open then goes through and closes itself, so it blocks no one.
    const store = await indexedDBStores('minca', { indexedDB }).open('registry');
    expect(await store.list('')).toEqual([]);
    await store.close!();
  });
});

describe('closing', () => {
  it('another connection deleting the database closes the store, which then says closed', async () => {
    const indexedDB = new IDBFactory();
    const store = await indexedDBStores('minca', { indexedDB }).open('spaces/s1');
    await store.batch([{ key: 'k', value: bytes(1) }]);
    // Not blocked: the store closes its connection when asked.
    await request(indexedDB.deleteDatabase('minca:spaces:s1'));
    for (const call of [
      store.get('k'),
      store.list(''),
      store.batch([]),
      store.putVersion(id, bytes(1)),
      store.getVersions!([id]),
    ]) {
      expect(await codeOf(call)).toBe('closed');
    }
  });

  it('another connection upgrading the database closes the store', async () => {
    const indexedDB = new IDBFactory();
    const store = await indexedDBStores('minca', { indexedDB }).open('registry');
    const newer = await rawOpen(indexedDB, 'minca:registry', 5);
    expect(await codeOf(store.get('k'))).toBe('closed');
    newer.close();
  });

  it('close() closes the store; the data waits for the next open; the factory closes too', async () => {
    const indexedDB = new IDBFactory();
    const stores = indexedDBStores('minca', { indexedDB });
    const a = await stores.open('spaces/a');
    await a.batch([{ key: 'k', value: bytes(1, 2) }]);
    await a.close!();
    await a.close!();
    expect(await codeOf(a.get('k'))).toBe('closed');
    expect(await codeOf(a.commit!({ versions: [], entries: [], deleteVersions: [] }))).toBe(
      'closed',
    );
    const b = await stores.open('spaces/a');
    expect(await b.get('k')).toEqual(bytes(1, 2));
    await stores.close!();
    expect(await codeOf(b.get('k'))).toBe('closed');
    expect(await codeOf(stores.open('spaces/a'))).toBe('closed');
    // Every connection is closed, so deleting is not blocked.
    await request(indexedDB.deleteDatabase('minca:spaces:a'));
  });
});

describe('bad input and failures', () => {
  it('refuses bad writes and ids with TypeError, writing nothing', async () => {
    const store = await indexedDBStores('minca', { indexedDB: new IDBFactory() }).open('registry');
    await store.batch([{ key: 'kept', value: bytes(1) }]);
    const bad = { key: 'b', value: [1] as unknown as Uint8Array };
    await expect(store.batch([{ key: 'a', value: bytes() }, bad])).rejects.toThrow(TypeError);
    await expect(store.batch([{ key: 5 as unknown as string, value: bytes() }])).rejects.toThrow(
      TypeError,
    );
    await expect(store.get(5 as unknown as string)).rejects.toThrow(TypeError);
    await expect(store.list(undefined as unknown as string)).rejects.toThrow(TypeError);
    await expect(store.putVersion('not-hex', bytes())).rejects.toThrow(TypeError);
    await expect(store.putVersion(id.toUpperCase(), bytes())).rejects.toThrow(TypeError);
    await expect(store.putVersion(id, 'x' as unknown as Uint8Array)).rejects.toThrow(TypeError);
    await expect(store.getVersion('')).rejects.toThrow(TypeError);
    await expect(
      store.commit!({ versions: [[id, bytes()]], entries: [bad], deleteVersions: [] }),
    ).rejects.toThrow(TypeError);
    await expect(
      store.commit!({ versions: [], entries: [], deleteVersions: ['nope'] }),
    ).rejects.toThrow(TypeError);
    expect(await store.list('')).toEqual(['kept']);
    expect(await store.getVersion(id)).toBeUndefined();
  });

  it('a value IndexedDB cannot store fails the whole batch as a storage error', async () => {
    const store = await indexedDBStores('minca', { indexedDB: new IDBFactory() }).open('registry');
    await store.batch([{ key: 'kept', value: bytes(1) }]);
    // A view over a transferred (detached) buffer: the clone inside put() throws.
    const buffer = new ArrayBuffer(8);
    const detached = new Uint8Array(buffer);
    structuredClone(buffer, { transfer: [buffer] });
    for (const attempt of [
      store.batch([
        { key: 'first', value: bytes(2) },
        { key: 'kept', value: undefined },
        { key: 'detached', value: detached },
      ]),
      store.commit!({
        versions: [[id, bytes(3)]],
        entries: [{ key: 'detached', value: detached }],
        deleteVersions: [],
      }),
    ]) {
      const error = await attempt.catch((e: unknown) => e);
      expect(isMincaError(error, 'storage')).toBe(true);
      expect(((error as Error).cause as Error).name).toBe('DataCloneError');
    }
    expect(await store.list('')).toEqual(['kept']);
    expect(await store.get('kept')).toEqual(bytes(1));
    expect(await store.getVersion(id)).toBeUndefined();
    // The store still works after.
    await store.batch([{ key: 'later', value: bytes(5) }]);
    expect(await store.list('')).toEqual(['kept', 'later']);
  });

  it('a stored value that is not an ArrayBuffer reads as corrupt', async () => {
    const indexedDB = new IDBFactory();
    const store = await indexedDBStores('minca', { indexedDB }).open('registry');
    await store.close!();
    const db = await rawOpen(indexedDB, 'minca:registry', 4);
    const tx = db.transaction(['kv', 'versions'], 'readwrite');
    tx.objectStore('kv').put('text', 'odd');
    tx.objectStore('versions').put(bytes(1), id);
    await new Promise((resolve) => (tx.oncomplete = resolve));
    db.close();
    const again = await indexedDBStores('minca', { indexedDB }).open('registry');
    expect(await codeOf(again.get('odd'))).toBe('corrupt');
    expect(await codeOf(again.entries!(''))).toBe('corrupt');
    expect(await codeOf(again.getVersion(id))).toBe('corrupt');
    expect(await again.list('')).toEqual(['odd']);
  });
});

describe('storage', () => {
  it('keeps values as ArrayBuffers holding only their bytes', async () => {
    const indexedDB = new IDBFactory();
    const store = await indexedDBStores('minca', { indexedDB }).open('registry');
    const backing = bytes(0, 1, 2, 3, 4, 5);
    await store.batch([
      { key: 'view', value: backing.subarray(2, 4) },
      { key: 'whole', value: backing },
    ]);
    await store.putVersion(id, backing.subarray(1, 2));
    // A small Node Buffer is a view of Node's shared pool, and its own slice() is a view too.
    const pooled = Buffer.from([7, 8, 9]);
    expect(pooled.buffer.byteLength).toBeGreaterThan(3);
    await store.batch([{ key: 'pooled', value: pooled }]);
    await store.close!();
    const db = await rawOpen(indexedDB, 'minca:registry', 4);
    const view = await request(db.transaction('kv').objectStore('kv').get('view'));
    expect(view).toBeInstanceOf(ArrayBuffer);
    expect(new Uint8Array(view as ArrayBuffer)).toEqual(bytes(2, 3));
    const fromPool = await request(db.transaction('kv').objectStore('kv').get('pooled'));
    expect(new Uint8Array(fromPool as ArrayBuffer)).toEqual(bytes(7, 8, 9));
    const body = await request(db.transaction('versions').objectStore('versions').get(id));
    expect(new Uint8Array(body as ArrayBuffer)).toEqual(bytes(1));
    db.close();
  });

  it('entries() answers the same where getAllRecords is missing (browsers before it)', async () => {
    const store = await indexedDBStores('minca', { indexedDB: new IDBFactory() }).open('registry');
    const keys = ['a', 'a/1', 'a/2', 'a\uffff\uffff', 'ab', 'b'];
    await store.batch(keys.map((key, i) => ({ key, value: bytes(i, i) })));
    const proto = IDBObjectStore.prototype as { getAllRecords?: unknown };
    expect(typeof proto.getAllRecords).toBe('function');
    const withRecords = [await store.entries!('a'), await store.entries!('')];
    const saved = proto.getAllRecords;
    delete proto.getAllRecords;
    try {
      expect([await store.entries!('a'), await store.entries!('')]).toEqual(withRecords);
    } finally {
      proto.getAllRecords = saved;
    }
    expect(withRecords[0]!.map(([key]) => key)).toEqual(['a', 'a/1', 'a/2', 'ab', 'a\uffff\uffff']);
    expect(withRecords[1]![5]).toEqual(['b', bytes(5, 5)]);
    await store.close!();
  });

  it('shares the body cache it was given', () => {
    const bodyCache = new LruBodyCache(10);
    expect(indexedDBStores('minca', { indexedDB: new IDBFactory(), bodyCache }).bodyCache).toBe(
      bodyCache,
    );
    expect(indexedDBStores('minca', { indexedDB: new IDBFactory() }).bodyCache).toBeUndefined();
  });
});

describe('prefixRange', () => {
  const bounds = (prefix: string) => {
    const range = prefixRange(IDBKeyRange, prefix);
    return range && [range.lower, range.upper, range.lowerOpen, range.upperOpen];
  };

  it('bounds a prefix by its successor, exclusive', () => {
    expect(bounds('')).toBeUndefined();
    expect(bounds('a')).toEqual(['a', 'b', false, true]);
    expect(bounds('foo/')).toEqual(['foo/', 'foo0', false, true]);
    expect(bounds('a\uffff')).toEqual(['a\uffff', 'b', false, true]);
    expect(bounds('a\uffff\uffff')).toEqual(['a\uffff\uffff', 'b', false, true]);
    expect(bounds('\ud83d')).toEqual(['\ud83d', '\ud83e', false, true]);
    expect(bounds('\uffff')).toEqual(['\uffff', undefined, false, true]);
  });

  it('holds exactly the keys that start with the prefix', () => {
    const keys = ['a', 'a\uffff', 'a\uffff\uffff', 'a😀', 'a\uffffz', 'b', '`', '\uffff\uffff'];
    for (const prefix of ['a', 'a\uffff', '\uffff', 'a\ud83d']) {
      const range = prefixRange(IDBKeyRange, prefix)!;
      expect(
        keys.filter((key) => range.includes(key)),
        JSON.stringify(prefix),
      ).toEqual(keys.filter((key) => key.startsWith(prefix)));
    }
  });
});
