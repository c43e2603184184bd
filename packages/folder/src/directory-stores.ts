/** `directoryStores`: a store factory keeping each store in a sub-folder of one folder. */
import { type BodyCache, MincaError, type StoreFactory } from '@minca/core';
import { DirectoryAdapter, type DirectoryStorageAdapter } from './directory-adapter.js';
import { folderPath } from './file-names.js';
import { type FolderSource, toFolderFs } from './folder-source.js';

/** Options of {@link directoryStores}. */
export interface DirectoryStoresOptions {
  /**
   * Read the folder on every call instead of keeping keys and version ids in memory, for a
   * store several processes write (a data folder's registry). Default false.
   */
  shared?: boolean;
  /**
   * Flush every file and folder to the device before a write resolves (fsync), so a power cut
   * loses nothing acknowledged. Default true; false still survives a crashed process.
   */
  sync?: boolean;
  /** A body cache every store of the factory shares. */
  bodyCache?: BodyCache;
  /**
   * Told of damage found and skipped on disk, such as a journal that is not whole. By default
   * it is written with `console.warn`.
   */
  onProblem?: (problem: MincaError) => void;
}

/** A {@link StoreFactory} whose stores can read their folder again. */
export interface DirectoryStoreFactory extends StoreFactory {
  open(path: string): Promise<DirectoryStorageAdapter>;
}

const PATH = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

/**
 * Stores in a folder: the store at path `spaces/x` lives in the sub-folder `spaces/x`, its
 * entries and version bodies one file each. Opening a path already open in this factory gives
 * the same adapter, so one process keeps one view of each store.
 *
 * ```ts
 * const stores = directoryStores('/home/me/.local/state/minca/stores');
 * const node = await createNode({ stores });
 * ```
 */
export function directoryStores(
  dir: FolderSource,
  options: DirectoryStoresOptions = {},
): DirectoryStoreFactory {
  const fs = toFolderFs(dir);
  const adapterOptions = {
    shared: options.shared ?? false,
    sync: options.sync ?? true,
    onProblem: options.onProblem ?? ((problem: MincaError) => console.warn(problem.message)),
  };
  const open = new Map<string, Promise<DirectoryAdapter>>();
  let closed = false;
  return {
    ...(options.bodyCache ? { bodyCache: options.bodyCache } : {}),
    async open(path: string): Promise<DirectoryStorageAdapter> {
      if (closed) throw new MincaError('closed', 'this directory store factory is closed');
      if (typeof path !== 'string' || !PATH.test(path)) {
        throw new MincaError(
          'invalid_name',
          `invalid store path ${JSON.stringify(String(path).slice(0, 80))}`,
        );
      }
      const known = open.get(path);
      if (known) {
        const adapter = await known.catch(() => undefined);
        if (adapter && !adapter.isClosed) return adapter;
      }
      // A store still closing finishes its writes before its folder is read again.
      await known?.then((adapter) => adapter.close()).catch(() => {});
      const opening = DirectoryAdapter.open(fs, folderPath(path), path, adapterOptions);
      open.set(path, opening);
      return opening;
    },
    async close(): Promise<void> {
      closed = true;
      const adapters = await Promise.all(
        [...open.values()].map((opening) => opening.catch(() => undefined)),
      );
      await Promise.all(adapters.map((adapter) => adapter?.close()));
    },
  };
}
