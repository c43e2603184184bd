/**
 * The blob store a data folder keeps its spaces' segments in (`<basePath>/spaces/`): a
 * directory blob store that also shows a sync service's conflict copies (spec 05 §14.4), so
 * the mirror reads them instead of missing them. A copy of the file of key `a/b/c` is listed
 * as `a/b/c.conflict-<first 16 hex of SHA-256 of the copy's file name>`; a segment name keeps
 * its hash first, so the mirror checks the copy against it like any segment.
 */
import { assertBlobKey, type BlobStore, hashId } from '@minca/core';
import { conflictOf } from './conflict-names.js';
import { createDirectoryBlobStore } from './directory-blob-store.js';
import { keyPath } from './file-names.js';
import { type FolderFs, staleTemps } from './folder-fs.js';
import { readKeyTree } from './key-tree.js';

const COPY_KEY = /^(.+)\.conflict-([0-9a-f]{16})$/;

function nameHash(name: string): string {
  const digest = hashId(new TextEncoder().encode(name));
  return Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The folder's spaces as a blob store, conflict copies included. */
export function folderSpacesStore(fs: FolderFs, options: { sync: boolean }): BlobStore {
  const inner = createDirectoryBlobStore(fs, options);

  /** The path of the conflict copy `key` names, if there is one. */
  const copyPath = async (key: string): Promise<string[] | undefined> => {
    const match = COPY_KEY.exec(key);
    if (!match) return undefined;
    const path = keyPath(match[1]!);
    const folder = path.slice(0, -1);
    const name = path[path.length - 1]!;
    for (const entry of (await fs.list(folder)) ?? []) {
      if (entry.kind !== 'file' || conflictOf(entry.name) !== name) continue;
      if (nameHash(entry.name) === match[2]) return [...folder, entry.name];
    }
    return undefined;
  };

  return {
    async get(key) {
      const bytes = await inner.get(key);
      if (bytes !== null) return bytes;
      const path = await copyPath(key);
      return path ? ((await fs.readFile(path)) ?? null) : null;
    },
    put: (key, bytes) => inner.put(key, bytes),
    async delete(key) {
      assertBlobKey(key);
      const path = await copyPath(key);
      if (path) await fs.removeFile(path);
      await inner.delete(key);
    },
    async list(prefix) {
      if (typeof prefix !== 'string') throw new TypeError('prefix must be a string');
      // One walk for the files and their copies: each open space lists its own at every pull.
      const copies: string[] = [];
      const temps = staleTemps(fs);
      const found = await readKeyTree(fs, [], {
        prefix,
        withConflicts: 'report',
        onConflict: (path, key) => copies.push(`${key}.conflict-${nameHash(path.at(-1)!)}`),
        onTemp: temps.onTemp,
      });
      await temps.clear();
      const keys = new Set(found);
      for (const copy of copies) {
        if (copy.startsWith(prefix) && copy.split('/').at(-1)!.length <= 200) keys.add(copy);
      }
      return [...keys].sort();
    },
  };
}
