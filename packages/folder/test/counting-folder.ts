import type { FolderFs } from '../src/folder-fs.ts';
import { nodeFolder } from '../src/node.ts';

/** The folder at `dir`, recording each folder it lists in `read` (its path joined by `/`). */
export function countingFolder(dir: string): { fs: FolderFs; read: string[] } {
  const disk = nodeFolder(dir);
  const read: string[] = [];
  const fs: FolderFs = {
    ...disk,
    list: (path) => {
      read.push(path.join('/'));
      return disk.list(path);
    },
  };
  return { fs, read };
}
