/**
 * `@minca/folder` for the browser and anywhere without `node:fs`: folders are
 * `FileSystemDirectoryHandle`s or a `FolderFs` of your own. In Node and Bun the package resolves
 * to `./node.ts` instead (its `node` export condition), which takes paths on disk too.
 */
export type {
  DirectoryAdapterOptions,
  DirectoryStorageAdapter,
} from './directory-adapter.js';
export {
  createDirectoryBlobStore,
  type DirectoryBlobStoreOptions,
} from './directory-blob-store.js';
export {
  type DirectoryStoreFactory,
  type DirectoryStoresOptions,
  directoryStores,
} from './directory-stores.js';
export { decodeBody, encodePart, keyPath } from './file-names.js';
export type { FolderEntry, FolderFs, WriteFileOptions } from './folder-fs.js';
export type { FolderSource } from './folder-source.js';
export {
  DEFAULT_WATCH_INTERVAL_MS,
  FOLDER_PUSH_DELAY_MS,
  type FolderStoreFactory,
  type FolderStoresOptions,
  folderStores,
  type InvalidatingNode,
  reconcileFolder,
} from './folder-stores.js';
export { handleFolder } from './handle-folder.js';
export {
  allowDataFolder,
  type BrowserDataFolderOptions,
  type BrowserFolderOptions,
  browserDataFolderStores,
  forgetDataFolder,
  HANDLE_DATABASE,
  HANDLE_KEY,
  HANDLE_STORE,
  hasFolderPicker,
  PICKER_OPTIONS,
  pickDataFolder,
  podStoresPrefix,
  type RememberedFolder,
  rememberedDataFolder,
} from './pick-folder.js';
