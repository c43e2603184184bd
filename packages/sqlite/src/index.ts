export type { SqliteDatabase, SqliteStatement, SqliteValue } from './driver.js';
export { idPrefix, SCHEMA_VERSION, SQLITE_PAGE_BYTES } from './schema.js';
export {
  SQLITE_BODY_CACHE,
  SQLITE_BODY_CACHE_BYTES,
  type SqliteStores,
  type SqliteStoresOptions,
  sqliteStores,
} from './sqlite-stores.js';
