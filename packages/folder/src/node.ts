/**
 * `@minca/folder` in Node and Bun (the package's `node` export condition): everything the
 * browser entry has, and folders named by a path on disk (`nodeFolder`, over `node:fs`), and
 * where the CLI keeps this device's own stores (`localStatePaths`). A bundle for the browser
 * resolves the package's default entry and never sees `node:*`.
 */
import {
  createDirectoryBlobStore as blobStoreOver,
  type DirectoryBlobStoreOptions,
} from './directory-blob-store.js';
import {
  type DirectoryStoreFactory,
  type DirectoryStoresOptions,
  directoryStores as storesOver,
} from './directory-stores.js';
import type { FolderSource } from './folder-source.js';
import {
  type FolderStoreFactory,
  type FolderStoresOptions,
  folderStores as folderStoresOver,
} from './folder-stores.js';
import { nodeFolder } from './node-folder.js';

export * from './index.js';
export {
  homeSlot,
  type LocalStateOptions,
  type LocalStatePaths,
  localStatePaths,
} from './local-state.js';
export { nodeFolder } from './node-folder.js';

const onDisk = (source: FolderSource) => (typeof source === 'string' ? nodeFolder(source) : source);

/**
 * Stores in a folder: a path on disk, a `FileSystemDirectoryHandle` or a `FolderFs`. See the
 * browser entry's `directoryStores`, which takes the last two.
 *
 * ```ts
 * const stores = directoryStores('/home/me/.local/state/minca/stores');
 * ```
 */
export function directoryStores(
  dir: FolderSource,
  options?: DirectoryStoresOptions,
): DirectoryStoreFactory {
  return storesOver(onDisk(dir), options);
}

/** A blob store in a folder, which may be a path on disk. */
export function createDirectoryBlobStore(dir: FolderSource, options?: DirectoryBlobStoreOptions) {
  return blobStoreOver(onDisk(dir), options);
}

/** The stores of a data folder, which may be a path on disk. */
export function folderStores(
  directory: FolderSource,
  options: FolderStoresOptions,
): FolderStoreFactory {
  return folderStoresOver(onDisk(directory), options);
}
