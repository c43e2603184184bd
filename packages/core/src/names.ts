/** The grammar of collection names. */
import { MincaError } from './errors.js';

/**
 * A collection is two to eight dot-separated parts of lowercase letters, digits and `-`, each
 * starting with a letter: `app.post`, `std.profile`. `sys.*` is the space's own.
 */
const COLLECTION = /^[a-z][a-z0-9-]{0,31}(?:\.[a-z][a-z0-9-]{0,31}){1,7}$/;

export function isCollectionName(name: unknown): name is string {
  return typeof name === 'string' && COLLECTION.test(name);
}

export function assertCollectionName(name: unknown): asserts name is string {
  if (!isCollectionName(name)) {
    throw new MincaError(
      'invalid_name',
      `invalid collection name ${JSON.stringify(String(name).slice(0, 80))}: use dot-separated ` +
        'lowercase parts such as "app.post"',
    );
  }
}

/** Collections the node writes itself (membership, the space's own record). */
export function isSystemCollection(name: string): boolean {
  return name.startsWith('sys.');
}
