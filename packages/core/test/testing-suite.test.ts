import { describe, expect, it } from 'vitest';
import type { StorageAdapter, StoreFactory } from '../src/adapter.ts';
import { type AdapterCheck, runAdapterCheck } from '../src/testing/adapter-harness.ts';
import * as blob from '../src/testing/blob-store-checks.ts';
import * as entry from '../src/testing/entry-checks.ts';
import { runBlobStoreTests, runStorageAdapterTests } from '../src/testing/index.ts';
import * as lifecycle from '../src/testing/lifecycle-checks.ts';
import * as listing from '../src/testing/listing-checks.ts';
import * as optional from '../src/testing/optional-method-checks.ts';
import { STORAGE_ADAPTER_CHECKS } from '../src/testing/storage-adapter-suite.ts';
import { type Data, type Flaws, fakeBlobStore, fakeStores } from './fake-adapter.ts';

runStorageAdapterTests('fake, required methods only', async () => ({ factory: fakeStores() }));
runStorageAdapterTests(
  'fake, with optional methods',
  async () => ({ factory: fakeStores({ optional: true }) }),
  {
    large: true,
  },
);
const backing = () => new Map<string, Data>();
runStorageAdapterTests('fake, reopened over the same backing', async () => {
  const data = backing();
  return {
    factory: fakeStores({ backing: data }),
    reopen: async () => fakeStores({ backing: data }),
  };
});
runBlobStoreTests('fake blob store', async () => ({ store: fakeBlobStore() }));

describe('the storage adapter suite catches broken adapters', () => {
  const broken = (flaws: Flaws, check: AdapterCheck, optional = false) =>
    runAdapterCheck(check, { factory: fakeStores({ flaws, optional }) });

  it('a list that returns siblings', async () => {
    await expect(broken({ siblings: true }, listing.siblingTrap)).rejects.toThrow(/list\("foo"\)/);
  });
  it('bytes aliased to the caller', async () => {
    await expect(broken({ aliases: true }, entry.bytesAreNotAliased)).rejects.toThrow(/mutating/);
  });
  it('a list in insertion order', async () => {
    await expect(broken({ unsorted: true }, listing.sortedByCodeUnits)).rejects.toThrow(/differs/);
  });
  it('sorting by code point, not code unit', async () => {
    await expect(broken({ codePoints: true }, listing.upperBoundKeys)).rejects.toThrow(/differs/);
  });
  it('a batch that lands write by write', async () => {
    await expect(broken({ tornBatch: true }, entry.batchIsAtomicToReaders)).rejects.toThrow(
      /mid-batch/,
    );
  });
  it('a store that forgets on close', async () => {
    await expect(broken({ forgets: true }, lifecycle.reopenKeepsEverything)).rejects.toThrow(
      /after reopening/,
    );
  });

  it('optional methods that disagree with the required ones', async () => {
    const lying: AdapterCheck = async (h) => {
      const original = h.open.bind(h);
      h.open = async (path) => {
        const a = await original(path);
        const entries = a.entries!.bind(a);
        return {
          ...a,
          entries: async (p: string) => (await entries(p)).slice(1),
        } as StorageAdapter;
      };
      await optional.entriesMatchesRequired(h);
    };
    await expect(
      runAdapterCheck(lying, { factory: fakeStores({ optional: true }) }),
    ).rejects.toThrow(/entries/);
  });

  it('a batch that applies part of a failed batch', async () => {
    const partial: AdapterCheck = async (h) => {
      const original = h.open.bind(h);
      h.open = async (path) => {
        const a = await original(path);
        return {
          ...a,
          batch: async (writes) => {
            for (const w of writes) await a.batch([w]);
          },
        } as StorageAdapter;
      };
      await entry.failedBatchWritesNothing(h);
    };
    await expect(runAdapterCheck(partial, { factory: fakeStores() })).rejects.toThrow(
      /all or nothing/,
    );
  });

  it('every check passes on the fake, called directly', async () => {
    for (const [, check] of STORAGE_ADAPTER_CHECKS)
      await runAdapterCheck(check, { factory: fakeStores() });
  });

  it('a reopen that loses the data', async () => {
    const context = { factory: fakeStores(), reopen: async () => fakeStores() };
    await expect(runAdapterCheck(lifecycle.reopenKeepsEverything, context)).rejects.toThrow(
      /after reopening/,
    );
  });

  it('restarts by closing stores, then the factory, then reopening', async () => {
    const events: string[] = [];
    const data = backing();
    const tracked = (n: number): StoreFactory => {
      const inner = fakeStores({ backing: data });
      return {
        open: async (path) => {
          const a = await inner.open(path);
          return { ...a, close: async () => void events.push(`close store ${n}`) };
        },
        close: async () => void events.push(`close factory ${n}`),
      };
    };
    let n = 0;
    const context = {
      factory: tracked(n),
      reopen: async () => {
        events.push('reopen');
        return tracked(++n);
      },
      teardown: async () => void events.push('teardown'),
    };
    await runAdapterCheck(lifecycle.reopenKeepsEverything, context);
    expect(events.slice(0, 4)).toEqual([
      'close store 0',
      'close store 0',
      'close factory 0',
      'reopen',
    ]);
    expect(events.slice(-2)).toEqual(['close factory 2', 'teardown']);
  });

  it('disposes of the context when a check fails, and reports the check', async () => {
    let tornDown = 0;
    const failing: AdapterCheck = async () => {
      throw new Error('the check failed');
    };
    const context = {
      factory: fakeStores(),
      teardown: async () => {
        tornDown++;
        throw new Error('teardown failed');
      },
    };
    await expect(runAdapterCheck(failing, context)).rejects.toThrow('the check failed');
    expect(tornDown).toBe(1);
  });
});

describe('the blob store suite catches broken blob stores', () => {
  it('a list that returns siblings', async () => {
    await expect(
      blob.runBlobStoreCheck(blob.listsUnderPrefix, { store: fakeBlobStore({ siblings: true }) }),
    ).rejects.toThrow(/list/);
  });
  it('keys that are not checked', async () => {
    await expect(
      blob.runBlobStoreCheck(blob.invalidKeysRejected, {
        store: fakeBlobStore({ uncheckedKeys: true }),
      }),
    ).rejects.toThrow(/expected a rejection/);
  });
  it('a method that throws instead of rejecting', async () => {
    const store = fakeBlobStore();
    const syncPut = {
      ...store,
      put: (key: string, bytes: Uint8Array) => {
        if (key === '') throw new TypeError('sync');
        return store.put(key, bytes);
      },
    };
    await expect(
      blob.runBlobStoreCheck(blob.invalidKeysRejected, { store: syncPut }),
    ).rejects.toThrow(/threw synchronously/);
  });
  it('aliased bytes', async () => {
    await expect(
      blob.runBlobStoreCheck(blob.bytesAreNotAliased, { store: fakeBlobStore({ aliases: true }) }),
    ).rejects.toThrow(/mutating/);
  });
});
