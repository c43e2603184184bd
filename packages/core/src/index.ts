export * from './adapter.js';
export * from './blob-store.js';
export * from './errors.js';
export * from './lru.js';
export * from './seal.js';
export * from './store-io.js';
