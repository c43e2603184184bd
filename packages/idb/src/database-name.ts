/** How a store path becomes an IndexedDB database name. */
import { MincaError } from '@minca/core';

/** A store path: `/`-separated parts of `[A-Za-z0-9._-]` (see `StoreFactory`). */
const STORE_PATH = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

/**
 * The database holding the store at `path`: `<prefix>:<path>`, with every `/` of the path
 * turned into `:`. A path never holds `:`, so two paths never share a database.
 *
 * @throws MincaError `invalid_name` when `path` is outside the store path grammar.
 */
export function databaseName(prefix: string, path: string): string {
  if (typeof path !== 'string' || !STORE_PATH.test(path)) {
    throw new MincaError(
      'invalid_name',
      `store path ${JSON.stringify(path)} is not /-separated parts of [A-Za-z0-9._-]`,
    );
  }
  return `${prefix}:${path.replaceAll('/', ':')}`;
}
