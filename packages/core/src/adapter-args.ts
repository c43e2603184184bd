/**
 * Argument checks every storage adapter makes before it writes, so a bad call is a `TypeError`
 * that writes nothing. Adapters share these rather than each spelling them out.
 */
import type { Commit, EntryWrite, VersionKey } from './adapter.js';
import { VERSION_HEX } from './ids.js';

export function assertVersionKey(id: unknown): asserts id is VersionKey {
  if (typeof id !== 'string' || !VERSION_HEX.test(id)) {
    throw new TypeError('a version id must be 64 lowercase hex characters');
  }
}

export function assertBodyBytes(body: unknown): asserts body is Uint8Array {
  if (!(body instanceof Uint8Array)) throw new TypeError('a version body must be a Uint8Array');
}

/** Checks a batch; `assertKey` adds an adapter's own rule for keys (e.g. no U+0000). */
export function assertWrites(
  writes: unknown,
  assertKey?: (key: string) => void,
): asserts writes is readonly EntryWrite[] {
  if (!Array.isArray(writes)) throw new TypeError('writes must be an array');
  for (const write of writes as EntryWrite[]) {
    if (typeof write?.key !== 'string') throw new TypeError('each write needs a string key');
    assertKey?.(write.key);
    if (write.value !== undefined && !(write.value instanceof Uint8Array)) {
      throw new TypeError('a write value must be a Uint8Array, or undefined to delete');
    }
  }
}

/** Checks a whole commit before any of it is written. */
export function assertCommit(
  commit: unknown,
  assertKey?: (key: string) => void,
): asserts commit is Commit {
  const c = commit as Commit;
  if (typeof c !== 'object' || c === null) throw new TypeError('commit must be an object');
  if (!Array.isArray(c.versions) || !Array.isArray(c.deleteVersions)) {
    throw new TypeError('commit.versions and commit.deleteVersions must be arrays');
  }
  for (const pair of c.versions) {
    if (!Array.isArray(pair)) throw new TypeError('each commit version must be an [id, body] pair');
    assertVersionKey(pair[0]);
    assertBodyBytes(pair[1]);
  }
  c.deleteVersions.forEach(assertVersionKey);
  assertWrites(c.entries, assertKey);
}
