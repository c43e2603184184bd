/** Turns what a caller names a folder by (a path, a handle, or a seam) into a {@link FolderFs}. */
import type { FolderFs } from './folder-fs.js';
import { handleFolder } from './handle-folder.js';
import { nodeFolder } from './node-folder.js';

/** A folder: a path on disk (Node, Bun), a `FileSystemDirectoryHandle`, or a {@link FolderFs}. */
export type FolderSource = string | FileSystemDirectoryHandle | FolderFs;

function isFolderFs(value: unknown): value is FolderFs {
  const fs = value as Partial<FolderFs>;
  return typeof fs?.writeFile === 'function' && typeof fs.removeEmptyFolder === 'function';
}

export function toFolderFs(source: FolderSource): FolderFs {
  if (typeof source === 'string') return nodeFolder(source);
  if (isFolderFs(source)) return source;
  if (typeof (source as FileSystemDirectoryHandle)?.getDirectoryHandle === 'function') {
    return handleFolder(source as FileSystemDirectoryHandle);
  }
  throw new TypeError('a folder is a path, a FileSystemDirectoryHandle or a FolderFs');
}
