import { MincaError } from './errors.js';

/**
 * A blob store keeps bytes by name. It is assumed slow, eventually consistent and without
 * atomic operations: a listing may miss a key just put, or still show one just deleted.
 * Keys are checked by {@link assertBlobKey}. The optional methods only save bytes and round
 * trips: {@link getBlobRange} and {@link listBlobFolders} give the same answers without them.
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
  /**
   * The `length` bytes under `key` from byte `offset` (fewer where the blob ends first, none
   * past its end), reading no more of it than that; `null` when absent.
   */
  getRange?(key: string, offset: number, length: number): Promise<Uint8Array | null>;
  /**
   * The distinct parts that follow `prefix` in keys that go on past them, sorted, without
   * listing the keys below: for keys `a/x/1`, `a/x/2`, `a/y/3/4` and `a/z`, `listFolders('a/')`
   * is `['x', 'y']`. `prefix` is `''` or ends with `/`.
   */
  listFolders?(prefix: string): Promise<string[]>;
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

/** Checks the range of a ranged read: whole numbers, `offset` ≥ 0, `length` ≥ 0. */
export function assertBlobRange(offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new RangeError('offset must be a whole number ≥ 0');
  if (!Number.isSafeInteger(length) || length < 0)
    throw new RangeError('length must be a whole number ≥ 0');
}

/**
 * Checks the prefix of a folder listing: `''`, or blob-key parts followed by `/`. A `prefix`
 * that is not a folder is a `RangeError`; a bad part `invalid_name`.
 */
export function assertBlobFolder(prefix: string): void {
  if (typeof prefix !== 'string') throw new TypeError('prefix must be a string');
  if (prefix === '') return;
  if (!prefix.endsWith('/')) throw new RangeError('a folder prefix is "" or ends with "/"');
  assertBlobKey(prefix.slice(0, -1));
}

/**
 * `length` bytes of the blob under `key` from `offset`, through `store.getRange` when it has
 * one (reading only those), else cut from the whole blob. `null` when absent. Never more
 * than `length` bytes, whatever the store sends.
 */
export async function getBlobRange(
  store: BlobStore,
  key: string,
  offset: number,
  length: number,
): Promise<Uint8Array | null> {
  assertBlobRange(offset, length);
  if (store.getRange) {
    const bytes = await store.getRange(key, offset, length);
    return bytes && bytes.length > length ? bytes.slice(0, length) : bytes;
  }
  const bytes = await store.get(key);
  return bytes === null ? null : bytes.slice(offset, offset + length);
}

/**
 * The folders right below `prefix` (see {@link BlobStore.listFolders}), through
 * `store.listFolders` when it has one, else from a listing of every key under `prefix`.
 */
export async function listBlobFolders(store: BlobStore, prefix: string): Promise<string[]> {
  assertBlobFolder(prefix);
  if (store.listFolders) return store.listFolders(prefix);
  const folders = new Set<string>();
  for (const key of await store.list(prefix)) {
    if (!key.startsWith(prefix)) continue;
    const slash = key.indexOf('/', prefix.length);
    if (slash > prefix.length) folders.add(key.slice(prefix.length, slash));
  }
  return [...folders].sort();
}
