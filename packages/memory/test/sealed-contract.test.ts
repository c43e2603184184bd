import { randomKey, sealedStores } from '@minca/core';
import { runRecordsTests, runStorageAdapterTests } from '@minca/core/testing';
import { memoryStores } from '../src/index.ts';

runStorageAdapterTests('sealedStores over memoryStores', async () => ({
  factory: sealedStores(memoryStores(), randomKey()),
}));
runRecordsTests('sealedStores over memoryStores', async () => ({
  factory: sealedStores(memoryStores(), randomKey()),
}));
