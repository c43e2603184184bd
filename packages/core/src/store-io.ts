/**
 * Reads and writes a store through its adapter, using the optional methods where the adapter
 * has them and the required ones otherwise. Both paths give the same answers.
 */
import type { Commit, StorageAdapter, VersionKey } from './adapter.js';

/** Every entry under `prefix`, sorted by key. Keys deleted between list and get are skipped. */
export async function readEntries(
  adapter: StorageAdapter,
  prefix: string,
): Promise<Array<[string, Uint8Array]>> {
  if (adapter.entries) return adapter.entries(prefix);
  const keys = await adapter.list(prefix);
  const values = await Promise.all(keys.map((key) => adapter.get(key)));
  const out: Array<[string, Uint8Array]> = [];
  keys.forEach((key, i) => {
    const value = values[i];
    if (value !== undefined) out.push([key, value]);
  });
  return out;
}

/** How many entries there are under `prefix`. */
export async function countEntries(adapter: StorageAdapter, prefix: string): Promise<number> {
  if (adapter.count) return adapter.count(prefix);
  return (await adapter.list(prefix)).length;
}

/** The bodies of `ids`, in order, `undefined` where absent. */
export async function readVersions(
  adapter: StorageAdapter,
  ids: readonly VersionKey[],
): Promise<Array<Uint8Array | undefined>> {
  if (ids.length === 0) return [];
  if (adapter.getVersions) return adapter.getVersions(ids);
  return Promise.all(ids.map((id) => adapter.getVersion(id)));
}

/**
 * Writes a whole change. With `commit` it is one atomic write. Without it, versions go first,
 * then the entries in one batch, then the version deletes, so no entry ever names a version
 * that isn't there.
 */
export async function writeCommit(adapter: StorageAdapter, commit: Commit): Promise<void> {
  if (adapter.commit) return adapter.commit(commit);
  for (const [id, body] of commit.versions) await adapter.putVersion(id, body);
  if (commit.entries.length > 0) await adapter.batch(commit.entries);
  for (const id of commit.deleteVersions) await adapter.deleteVersion(id);
}
