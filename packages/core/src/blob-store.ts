import { MincaError } from './errors.js';

/**
 * A blob store keeps bytes by name. It is assumed slow, eventually consistent and without
 * atomic operations: a listing may miss a key just put, or still show one just deleted.
 * Keys are checked by {@link assertBlobKey}.
 */
export interface BlobStore {
  /** The bytes under `key`, or `null` when absent. */
  get(key: string): Promise<Uint8Array | null>;
  /** Puts `bytes` under `key`, replacing what was there. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** Deletes `key`; deleting an absent key succeeds. */
  delete(key: string): Promise<void>;
  /** Every key that starts with `prefix` (a plain string prefix), sorted. */
  list(prefix: string): Promise<string[]>;
}

const BLOB_KEY_PART = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/**
 * Checks a blob key: `/`-separated parts of `[A-Za-z0-9._-]`, 1–200 characters each, none
 * starting with `.`, 1024 characters in all. Every blob store accepts exactly these, so a key
 * is portable between them.
 */
export function assertBlobKey(key: string): void {
  const parts = key.split('/');
  if (key.length > 1024 || !parts.every((p) => BLOB_KEY_PART.test(p))) {
    throw new MincaError('invalid_name', `invalid blob key ${JSON.stringify(key.slice(0, 80))}`);
  }
}
