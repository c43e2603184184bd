/** Turns what a caller names a folder by (a path, a handle, or a seam) into a {@link FolderFs}. */
import type { FolderFs } from './folder-fs.js';
import { handleFolder } from './handle-folder.js';

/**
 * A folder: a path on disk (Node, Bun: the package's `node` entry opens it), a
 * `FileSystemDirectoryHandle`, or a {@link FolderFs}.
 */
export type FolderSource = string | FileSystemDirectoryHandle | FolderFs;

function isFolderFs(value: unknown): value is FolderFs {
  const fs = value as Partial<FolderFs>;
  return typeof fs?.writeFile === 'function' && typeof fs.removeEmptyFolder === 'function';
}

export function toFolderFs(source: FolderSource): FolderFs {
  if (typeof source === 'string') {
    // The node entry turns paths into folders before they get here.
    throw new TypeError(
      `a folder path (${source.slice(0, 80)}) needs Node or Bun: there, @minca/folder opens it`,
    );
  }
  if (isFolderFs(source)) return source;
  if (typeof (source as FileSystemDirectoryHandle)?.getDirectoryHandle === 'function') {
    return handleFolder(source as FileSystemDirectoryHandle);
  }
  throw new TypeError('a folder is a path, a FileSystemDirectoryHandle or a FolderFs');
}
