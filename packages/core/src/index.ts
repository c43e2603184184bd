export * from './errors.js';
export * from './adapter.js';
export * from './blob-store.js';
export * from './store-io.js';
