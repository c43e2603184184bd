export { createMemoryBlobStore } from './memory-blob-store.js';
export { type MemoryStoresOptions, memoryStores } from './memory-stores.js';
