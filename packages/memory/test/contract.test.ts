import { runBlobStoreTests, runStorageAdapterTests } from '@minca/core/testing';
import { createMemoryBlobStore, memoryStores } from '../src/index.ts';

runStorageAdapterTests('memoryStores', async () => ({ factory: memoryStores() }), { large: true });
runBlobStoreTests('createMemoryBlobStore', async () => ({ store: createMemoryBlobStore() }));
