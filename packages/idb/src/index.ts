export { type IndexedDBStoresOptions, indexedDBStores } from './indexeddb-stores.js';
export { DATABASE_VERSION } from './open-database.js';
