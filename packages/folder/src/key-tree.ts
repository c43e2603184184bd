/**
 * Reads the keys a folder tree holds, named as {@link keyPath} names them. Names that don't
 * decode (a sync service's conflict copies, a stranger's files) are skipped; leftover temp
 * files are handed to `onTemp` so the caller can clean them up.
 */
import { conflictOf } from './conflict-names.js';
import { decodeBody, folderPath, isCanonical, parseName } from './file-names.js';
import { type FolderFs, TEMP_NAME } from './folder-fs.js';

/** Options of {@link readKeyTree}. */
export interface KeyTreeOptions {
  /** Only keys starting with this; folders that can't hold one are not read. */
  prefix?: string;
  /** Called with the path of each `<name>.<uuid>.tmp` file found, and its uuid. */
  onTemp?: (path: string[], uuid: string) => void;
  /**
   * Find a sync service's conflict copies of files (see conflict-names.ts), each handed to
   * `onConflict`. With `true` the key a copy is a copy of is listed too, so a key held only in
   * a conflict copy is still found; with `'report'` only files' own keys are listed.
   */
  withConflicts?: boolean | 'report';
  /** Called with each conflict copy found (with `withConflicts`): its path and the key it copies. */
  onConflict?: (path: string[], key: string) => void;
}

/** Folders read at once, so a tree of many folders can't exhaust file handles. */
const PARALLEL = 16;

/** True when a key starting with `start` could start with `prefix`. */
function mayMatch(start: string, prefix: string): boolean {
  return start.startsWith(prefix) || prefix.startsWith(start);
}

/** Every key under the folder `root`, unsorted. */
export async function readKeyTree(
  fs: FolderFs,
  root: readonly string[],
  options: KeyTreeOptions = {},
): Promise<string[]> {
  const prefix = options.prefix ?? '';
  const keys: string[] = [];

  // `keySoFar` holds the finished parts with their `/`; `part`/`pieces` the part being read.
  const walk = async (
    dir: string[],
    keySoFar: string,
    part: string,
    pieces: string[],
  ): Promise<void> => {
    const entries = (await fs.list(dir)) ?? [];
    const folders: Array<() => Promise<void>> = [];
    for (const entry of entries) {
      const temp = TEMP_NAME.exec(entry.name);
      if (temp) {
        if (entry.kind === 'file') options.onTemp?.([...dir, entry.name], temp[1]!);
        continue;
      }
      const copyOf =
        options.withConflicts && entry.kind === 'file' ? conflictOf(entry.name) : undefined;
      const parsed = parseName(copyOf ?? entry.name);
      if (!parsed || (parsed.kind === 'file') !== (entry.kind === 'file')) continue;
      const text = decodeBody(parsed.body);
      if (text === undefined) continue;
      const whole = part + text;
      const chain = [...pieces, parsed.body];
      const path = [...dir, entry.name];
      if (parsed.kind === 'more') {
        if (mayMatch(keySoFar + whole, prefix)) {
          folders.push(() => walk(path, keySoFar, whole, chain));
        }
        continue;
      }
      if (!isCanonical(whole, chain)) continue;
      if (parsed.kind === 'file') {
        const key = keySoFar + whole;
        // A copy's own key is longer than the key it copies: the caller checks the prefix.
        if (copyOf && mayMatch(key, prefix)) options.onConflict?.(path, key);
        if (key.startsWith(prefix) && !(copyOf && options.withConflicts === 'report'))
          keys.push(key);
      } else {
        const next = `${keySoFar}${whole}/`;
        if (mayMatch(next, prefix)) folders.push(() => walk(path, next, '', []));
      }
    }
    for (let i = 0; i < folders.length; i += PARALLEL) {
      await Promise.all(folders.slice(i, i + PARALLEL).map((read) => read()));
    }
  };

  // The parts of the prefix before its last `/` name one folder path: the walk starts there,
  // not at the root, so listing one space's files among thousands reads its folder alone. The
  // same folders a walk from the root would enter, since it enters only canonical names.
  const cut = prefix.lastIndexOf('/');
  if (cut === -1) await walk([...root], '', '', []);
  else await walk([...root, ...folderPath(prefix.slice(0, cut))], prefix.slice(0, cut + 1), '', []);
  return keys;
}
