/**
 * The seam over a File System Access `FileSystemDirectoryHandle` (a folder the person picked,
 * or OPFS). A file is replaced atomically when its writable closes.
 */
import { MincaError } from '@minca/core';
import type { FolderEntry, FolderFs } from './folder-fs.js';

function nameOf(error: unknown): string | undefined {
  return (error as { name?: unknown })?.name as string | undefined;
}

function storageError(what: string, names: readonly string[], error: unknown): MincaError {
  const reason = error instanceof Error ? error.message : String(error);
  return new MincaError('storage', `${what} ${names.join('/')} failed: ${reason}`, {
    cause: error,
  });
}

const ABSENT = new Set(['NotFoundError', 'TypeMismatchError']);
const NOT_EMPTY = new Set(['InvalidModificationError', 'NoModificationAllowedError']);
const WRITE_ATTEMPTS = 8;

/**
 * Errors a write (and making its folders) retries. NotFoundError: the folder went with its
 * last file while the write was on its way. NoModificationAllowedError: Chromium locks a
 * folder while `removeEntry` prunes it, and a `createWritable` inside it fails until the lock
 * is gone.
 */
const RETRY_WRITE = new Set(['NotFoundError', 'NoModificationAllowedError']);

/**
 * `work`, begun again while it fails with an error a write retries: up to {@link
 * WRITE_ATTEMPTS} times, waiting a millisecond longer each time. Its last error is thrown.
 */
async function retried<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!RETRY_WRITE.has(nameOf(error) ?? '') || attempt >= WRITE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt));
    }
  }
}

/** A {@link FolderFs} over a directory handle. */
export function handleFolder(root: FileSystemDirectoryHandle): FolderFs {
  if (typeof root?.getDirectoryHandle !== 'function') {
    throw new TypeError('root must be a FileSystemDirectoryHandle');
  }

  /** The folder at `names`, or `undefined` when it (or one above it) is absent. */
  const find = async (names: readonly string[]): Promise<FileSystemDirectoryHandle | undefined> => {
    let dir = root;
    for (const name of names) {
      try {
        dir = await dir.getDirectoryHandle(name);
      } catch (error) {
        if (ABSENT.has(nameOf(error) ?? '')) return undefined;
        throw storageError('opening folder', names, error);
      }
    }
    return dir;
  };

  /**
   * The folder at `names`, made with those above it. A folder on the path pruned between being
   * made and making the next one in it (NotFoundError), or locked while it is pruned, makes the
   * walk begin again, a few times, as a write does; a file where a folder should be
   * (TypeMismatchError) is a `storage` error at once.
   */
  const make = async (names: readonly string[]): Promise<FileSystemDirectoryHandle> => {
    try {
      return await retried(async () => {
        let dir = root;
        for (const name of names) dir = await dir.getDirectoryHandle(name, { create: true });
        return dir;
      });
    } catch (error) {
      throw storageError('making folder', names, error);
    }
  };

  return {
    atomicCreate: false,

    async readFile(names) {
      const dir = await find(names.slice(0, -1));
      if (!dir) return undefined;
      try {
        const handle = await dir.getFileHandle(names[names.length - 1]!);
        return new Uint8Array(await (await handle.getFile()).arrayBuffer());
      } catch (error) {
        if (ABSENT.has(nameOf(error) ?? '')) return undefined;
        throw storageError('reading', names, error);
      }
    },

    async readFileRange(names, offset, length) {
      const dir = await find(names.slice(0, -1));
      if (!dir) return undefined;
      try {
        const handle = await dir.getFileHandle(names[names.length - 1]!);
        // A File is a Blob: slicing it reads only that part from disk.
        const file = await handle.getFile();
        return new Uint8Array(await file.slice(offset, offset + length).arrayBuffer());
      } catch (error) {
        if (ABSENT.has(nameOf(error) ?? '')) return undefined;
        throw storageError('reading', names, error);
      }
    },

    async writeFile(names, bytes) {
      try {
        await retried(async () => {
          // A folder on the path pruned while it is made is made again there; one pruned
          // after, while the file is written, is a NotFoundError: the write begins again.
          const dir = await make(names.slice(0, -1));
          const handle = await dir.getFileHandle(names[names.length - 1]!, { create: true });
          const writable = await handle.createWritable();
          try {
            await writable.write(bytes as Uint8Array<ArrayBuffer>);
          } catch (error) {
            await writable.abort().catch(() => {});
            throw error;
          }
          await writable.close();
        });
      } catch (error) {
        throw error instanceof MincaError ? error : storageError('writing', names, error);
      }
    },

    async list(names): Promise<FolderEntry[] | undefined> {
      const dir = await find(names);
      if (!dir) return undefined;
      const out: FolderEntry[] = [];
      try {
        for await (const [name, handle] of dir.entries()) {
          out.push({ name, kind: handle.kind === 'file' ? 'file' : 'directory' });
        }
      } catch (error) {
        if (ABSENT.has(nameOf(error) ?? '')) return undefined;
        throw storageError('listing', names, error);
      }
      return out;
    },

    async removeFile(names) {
      const dir = await find(names.slice(0, -1));
      if (!dir) return;
      try {
        await dir.removeEntry(names[names.length - 1]!);
      } catch (error) {
        if (ABSENT.has(nameOf(error) ?? '')) return;
        throw storageError('removing', names, error);
      }
    },

    async removeEmptyFolder(names) {
      const dir = await find(names.slice(0, -1));
      if (!dir) return false;
      try {
        await dir.removeEntry(names[names.length - 1]!);
        return true;
      } catch (error) {
        // A folder with something in it: Chromium says NoModificationAllowedError, the spec
        // InvalidModificationError.
        const name = nameOf(error) ?? '';
        if (ABSENT.has(name) || NOT_EMPTY.has(name)) return false;
        throw storageError('removing folder', names, error);
      }
    },

    async makeFolder(names) {
      await make(names);
    },

    // The browser flushes on close(); there is no folder to flush.
    async syncFolder() {},
  };
}
