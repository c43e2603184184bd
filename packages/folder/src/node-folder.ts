/**
 * The seam over Node's `fs/promises` (also Bun). A file is written as `<name>.<uuid>.tmp` with
 * mode 0600, flushed, and renamed into place; folders are made with mode 0700. `node:fs` is
 * imported only when a folder is first used, so a browser bundle of this package never loads it.
 */
import { MincaError } from '@minca/core';
import type { FolderEntry, FolderFs, WriteFileOptions } from './folder-fs.js';
import { timeUuid } from './time-uuid.js';

type NodeFs = typeof import('node:fs/promises');
type NodePath = typeof import('node:path');

let modules: Promise<{ fs: NodeFs; path: NodePath }> | undefined;

function load(): Promise<{ fs: NodeFs; path: NodePath }> {
  modules ??= Promise.all([import('node:fs/promises'), import('node:path')]).then(([fs, path]) => ({
    fs,
    path,
  }));
  return modules;
}

function codeOf(error: unknown): string | undefined {
  return (error as { code?: unknown })?.code as string | undefined;
}

function storageError(what: string, where: string, error: unknown): MincaError {
  const reason = error instanceof Error ? error.message : String(error);
  return new MincaError('storage', `${what} ${where} failed: ${reason}`, { cause: error });
}

/** Retries of a write whose folder another writer removed (it went with its last file). */
const WRITE_ATTEMPTS = 4;

/** A {@link FolderFs} over the folder `root` on disk, made (mode 0700) when first written. */
export function nodeFolder(root: string): FolderFs {
  if (typeof root !== 'string' || root.length === 0) {
    throw new TypeError('root must be a non-empty path');
  }
  const at = async (names: readonly string[]) => {
    const { path } = await load();
    return path.join(root, ...names);
  };

  const syncFolder = async (names: readonly string[]): Promise<void> => {
    const { fs } = await load();
    const where = await at(names);
    let handle: Awaited<ReturnType<NodeFs['open']>> | undefined;
    try {
      handle = await fs.open(where, 'r');
      await handle.sync();
    } catch (error) {
      // Windows can't open a folder to flush it; its renames are flushed with the file.
      if (!['EISDIR', 'EPERM', 'EACCES', 'ENOENT'].includes(codeOf(error) ?? '')) {
        throw storageError('flushing folder', where, error);
      }
    } finally {
      await handle?.close();
    }
  };

  const makeFolder = async (names: readonly string[]): Promise<void> => {
    const { fs } = await load();
    const where = await at(names);
    try {
      await fs.mkdir(where, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw storageError('making folder', where, error);
    }
  };

  return {
    atomicCreate: true,

    async readFile(names) {
      const { fs } = await load();
      const where = await at(names);
      try {
        return new Uint8Array(await fs.readFile(where));
      } catch (error) {
        if (['ENOENT', 'EISDIR', 'ENOTDIR'].includes(codeOf(error) ?? '')) return undefined;
        throw storageError('reading', where, error);
      }
    },

    async readFileRange(names, offset, length) {
      const { fs } = await load();
      const where = await at(names);
      let handle: Awaited<ReturnType<NodeFs['open']>> | undefined;
      try {
        handle = await fs.open(where, 'r');
        const out = new Uint8Array(length);
        let got = 0;
        while (got < length) {
          const { bytesRead } = await handle.read(out, got, length - got, offset + got);
          if (bytesRead === 0) break; // the end of the file
          got += bytesRead;
        }
        return got === length ? out : out.slice(0, got);
      } catch (error) {
        if (['ENOENT', 'EISDIR', 'ENOTDIR'].includes(codeOf(error) ?? '')) return undefined;
        throw storageError('reading', where, error);
      } finally {
        await handle?.close();
      }
    },

    async writeFile(names, bytes, options: WriteFileOptions = {}) {
      const { fs, path } = await load();
      const target = await at(names);
      for (let attempt = 1; ; attempt++) {
        const temp = `${target}.${timeUuid()}.tmp`;
        let handle: Awaited<ReturnType<NodeFs['open']>>;
        try {
          handle = await fs.open(temp, 'wx', 0o600);
        } catch (error) {
          if (codeOf(error) === 'ENOENT' && attempt < WRITE_ATTEMPTS) {
            await makeFolder(names.slice(0, -1));
            continue;
          }
          throw storageError('writing', target, error);
        }
        try {
          await handle.writeFile(bytes);
          if (options.sync) await handle.sync();
        } catch (error) {
          await handle.close().catch(() => {});
          await fs.rm(temp, { force: true }).catch(() => {});
          throw storageError('writing', target, error);
        }
        await handle.close();
        try {
          await fs.rename(temp, target);
          return;
        } catch (error) {
          await fs.rm(temp, { force: true }).catch(() => {});
          if (codeOf(error) === 'ENOENT' && attempt < WRITE_ATTEMPTS) continue;
          throw storageError('renaming into', path.basename(target), error);
        }
      }
    },

    async list(names): Promise<FolderEntry[] | undefined> {
      const { fs } = await load();
      const where = await at(names);
      try {
        const dirents = await fs.readdir(where, { withFileTypes: true });
        const out: FolderEntry[] = [];
        for (const d of dirents) {
          if (d.isFile()) out.push({ name: d.name, kind: 'file' });
          else if (d.isDirectory()) out.push({ name: d.name, kind: 'directory' });
        }
        return out;
      } catch (error) {
        if (['ENOENT', 'ENOTDIR'].includes(codeOf(error) ?? '')) return undefined;
        throw storageError('listing', where, error);
      }
    },

    async removeFile(names) {
      const { fs } = await load();
      const where = await at(names);
      try {
        await fs.unlink(where);
      } catch (error) {
        if (['ENOENT', 'ENOTDIR'].includes(codeOf(error) ?? '')) return;
        throw storageError('removing', where, error);
      }
    },

    async removeEmptyFolder(names) {
      const { fs } = await load();
      const where = await at(names);
      try {
        await fs.rmdir(where);
        return true;
      } catch (error) {
        if (['ENOENT', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR'].includes(codeOf(error) ?? '')) {
          return false;
        }
        throw storageError('removing folder', where, error);
      }
    },

    makeFolder,
    syncFolder,
  };
}
