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
export { handleFolder } from './handle-folder.js';
export { nodeFolder } from './node-folder.js';
