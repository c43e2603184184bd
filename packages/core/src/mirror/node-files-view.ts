/** The view of a space's files a mirror needs, over the files module's {@link SpaceFiles}. */
import type { SpaceFiles } from '../files/space-files.js';
import type { MirroredFiles } from './mirror-files.js';

export function mirroredFiles(
  files: SpaceFiles,
  subscribe: (listener: () => void) => () => void,
): MirroredFiles {
  return {
    whole: () => files.whole(),
    named: () => files.named(),
    list: (id) => {
      const list = files.files.get(id)?.list;
      return list && { bytes: list.bytes, chunks: list.hashes.length };
    },
    chunk: (id, n) => files.files.chunk(id, n),
    subscribe,
  };
}
