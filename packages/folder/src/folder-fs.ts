/**
 * The file system seam: the few operations directory stores and blob stores need, over Node's
 * `fs` ({@link nodeFolder}) or a File System Access handle ({@link handleFolder}). A path is an
 * array of names under the folder's root, never a string, so no separator is ever parsed.
 */

/** One name in a folder. */
export interface FolderEntry {
  name: string;
  kind: 'file' | 'directory';
}

/** Options of {@link FolderFs.writeFile}. */
export interface WriteFileOptions {
  /** Flush the file's bytes to the device before it replaces the old one (fsync). */
  sync?: boolean;
}

/** A folder the stores write into. Every failure is a `MincaError` with code `storage`. */
export interface FolderFs {
  /**
   * True when {@link writeFile} never shows a partial or empty file, even to a reader after a
   * crash. Node's temp-and-rename does; a handle's `getFileHandle({ create: true })` makes an
   * empty file before the write lands.
   */
  readonly atomicCreate: boolean;
  /** The bytes of a file, or `undefined` when there is none (or it is a folder). */
  readFile(path: readonly string[]): Promise<Uint8Array | undefined>;
  /**
   * `length` bytes of a file from byte `offset` (fewer where it ends first), reading no more
   * of it; `undefined` when there is none. Optional: without it, the file is read whole.
   */
  readFileRange?(
    path: readonly string[],
    offset: number,
    length: number,
  ): Promise<Uint8Array | undefined>;
  /** Replaces a file's bytes atomically, making the folders above it. */
  writeFile(path: readonly string[], bytes: Uint8Array, options?: WriteFileOptions): Promise<void>;
  /** The names in a folder, or `undefined` when it does not exist. */
  list(path: readonly string[]): Promise<FolderEntry[] | undefined>;
  /** Removes a file; removing an absent one succeeds. */
  removeFile(path: readonly string[]): Promise<void>;
  /** Removes a folder if it is empty: false when it holds something or is not there. */
  removeEmptyFolder(path: readonly string[]): Promise<boolean>;
  /** Makes a folder and those above it. */
  makeFolder(path: readonly string[]): Promise<void>;
  /** Makes the renames and removals done in a folder durable (fsync of the folder). */
  syncFolder(path: readonly string[]): Promise<void>;
}

import { uuidTime } from './time-uuid.js';

/**
 * A temp file or journal of a writer that may still be running is left alone until it is this
 * old (its age is in its UUIDv7).
 */
export const STALE_MS = 30_000;

/** True when the temp file or journal named with `uuid` is {@link STALE_MS} old. */
export function isStale(uuid: string, now: number = Date.now()): boolean {
  const made = uuidTime(uuid);
  return made === undefined || now - made > STALE_MS;
}

/**
 * For a listing's walk: `onTemp` gathers the temp files a crash left (a put still on its way has
 * a fresh one, left alone), and `clear()`, once the walk is done, removes them.
 */
export function staleTemps(fs: FolderFs) {
  const stale: string[][] = [];
  return {
    onTemp: (path: string[], uuid: string) => {
      if (isStale(uuid)) stale.push(path);
    },
    clear: () => Promise.all(stale.map((path) => fs.removeFile(path))),
  };
}

/** Leftovers of an interrupted write: `<name>.<uuid>.tmp`. */
export const TEMP_NAME = /\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.tmp$/;

/**
 * Removes `path`'s file, then each folder above it that it left empty, up to (not including)
 * the first `keep` names. A folder goes with the last name in it.
 */
export async function removeAndPrune(
  fs: FolderFs,
  path: readonly string[],
  keep: number,
): Promise<void> {
  await fs.removeFile(path);
  for (let end = path.length - 1; end > keep; end--) {
    if (!(await fs.removeEmptyFolder(path.slice(0, end)))) return;
  }
}

/** The folder `names` inside `fs`, as a {@link FolderFs} of its own. */
export function subFolder(fs: FolderFs, names: readonly string[]): FolderFs {
  if (names.length === 0) return fs;
  const at = (path: readonly string[]) => [...names, ...path];
  return {
    atomicCreate: fs.atomicCreate,
    readFile: (path) => fs.readFile(at(path)),
    ...(fs.readFileRange
      ? {
          readFileRange: (path: readonly string[], offset: number, length: number) =>
            fs.readFileRange!(at(path), offset, length),
        }
      : {}),
    writeFile: (path, bytes, options) => fs.writeFile(at(path), bytes, options),
    list: (path) => fs.list(at(path)),
    removeFile: (path) => fs.removeFile(at(path)),
    removeEmptyFolder: (path) =>
      path.length === 0 ? Promise.resolve(false) : fs.removeEmptyFolder(at(path)),
    makeFolder: (path) => fs.makeFolder(at(path)),
    syncFolder: (path) => fs.syncFolder(at(path)),
  };
}
