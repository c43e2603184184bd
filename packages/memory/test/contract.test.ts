import { runBlobStoreTests, runRecordsTests, runStorageAdapterTests } from '@minca/core/testing';
import { createMemoryBlobStore, memoryStores } from '../src/index.ts';

runStorageAdapterTests('memoryStores', async () => ({ factory: memoryStores() }), { large: true });
runBlobStoreTests('createMemoryBlobStore', async () => ({ store: createMemoryBlobStore() }));
runRecordsTests('memoryStores', async () => ({ factory: memoryStores() }));
