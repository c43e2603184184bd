/**
 * The key parts a folder holds as folders, for a blob store's folder listing: each folder name
 * that decodes, and each long part kept as a chain of `.more` folders, read down to its end.
 * Files, names that don't decode and chains that end in a file (a key's last part) are not parts.
 */
import { decodeBody, isCanonical, parseName } from './file-names.js';
import type { FolderFs } from './folder-fs.js';

/** The distinct key parts held as folders in the folder `dir`, unsorted. */
export async function readFolderParts(fs: FolderFs, dir: readonly string[]): Promise<string[]> {
  const parts = new Set<string>();
  const walk = async (at: readonly string[], pieces: readonly string[]): Promise<void> => {
    for (const entry of (await fs.list(at)) ?? []) {
      if (entry.kind !== 'directory') continue;
      const parsed = parseName(entry.name);
      if (!parsed || parsed.kind === 'file') continue;
      const chain = [...pieces, parsed.body];
      if (parsed.kind === 'more') {
        await walk([...at, entry.name], chain);
        continue;
      }
      const texts = chain.map(decodeBody);
      if (texts.some((t) => t === undefined)) continue;
      const part = texts.join('');
      if (isCanonical(part, chain)) parts.add(part);
    }
  };
  await walk(dir, []);
  return [...parts];
}
