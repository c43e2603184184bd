/**
 * Getting a data folder in the browser (spec 05 §14.8): the File System Access picker from a
 * click, the handle remembered in IndexedDB (`minca-folder`, store `handles`, key
 * `data-folder`), the permission checked on a later visit and asked for again only from a
 * click. Where the picker is missing (Firefox, Safari, mobile browsers) the data stays in
 * IndexedDB instead. Either way the folder's own stores are IndexedDB under
 * `minca-pod:<dataPath>`, which forgetting an account's browser copy (`minca:`) leaves alone.
 */
import type { MincaError, StoreFactory } from '@minca/core';
import { type FolderStoreFactory, folderStores } from './folder-stores.js';

/** What the picker is asked for: one remembered place, read and write, from Documents. */
export const PICKER_OPTIONS = Object.freeze({
  id: 'minca-pod',
  mode: 'readwrite',
  startIn: 'documents',
} as const);
/** Where the folder's handle is remembered. */
export const HANDLE_DATABASE = 'minca-folder';
export const HANDLE_STORE = 'handles';
export const HANDLE_KEY = 'data-folder';

/**
 * The prefix of a data folder's own IndexedDB stores: `minca-pod:<dataPath>`, with `/` turned
 * into `:` as in every database name (`minca-pod:accounts:k3x9q2:stores`).
 */
export function podStoresPrefix(dataPath: string): string {
  if (typeof dataPath !== 'string' || dataPath.length === 0) {
    throw new TypeError('dataPath must be a non-empty string');
  }
  return `minca-pod:${dataPath.replaceAll('/', ':')}`;
}

type Permission = 'granted' | 'denied' | 'prompt';

/** The permission methods Chromium gives a handle (not yet in TypeScript's DOM types). */
interface PermissionHandle {
  queryPermission?(descriptor: { mode: 'readwrite' }): Promise<Permission>;
  requestPermission?(descriptor: { mode: 'readwrite' }): Promise<Permission>;
}

type Picker = (options: typeof PICKER_OPTIONS) => Promise<FileSystemDirectoryHandle>;

/** Where the picker and IndexedDB come from: the page's by default; tests pass their own. */
export interface BrowserFolderOptions {
  showDirectoryPicker?: Picker;
  indexedDB?: IDBFactory;
}

function pickerOf(options: BrowserFolderOptions): Picker | undefined {
  if (options.showDirectoryPicker) return options.showDirectoryPicker;
  const global = globalThis as { showDirectoryPicker?: Picker };
  return typeof global.showDirectoryPicker === 'function'
    ? (o) => global.showDirectoryPicker!(o)
    : undefined;
}

/** True when this browser can pick a folder (Chromium on desktop); else keep data in IndexedDB. */
export function hasFolderPicker(options: BrowserFolderOptions = {}): boolean {
  return pickerOf(options) !== undefined;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function withHandles<T>(
  options: BrowserFolderOptions,
  mode: IDBTransactionMode,
  run: (store: IDBObjectStore) => IDBRequest<T>,
): Promise<T> {
  const factory = options.indexedDB ?? globalThis.indexedDB;
  const open = factory.open(HANDLE_DATABASE, 1);
  open.onupgradeneeded = () => open.result.createObjectStore(HANDLE_STORE);
  const db = await request(open);
  try {
    const tx = db.transaction(HANDLE_STORE, mode);
    const result = await request(run(tx.objectStore(HANDLE_STORE)));
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
    return result;
  } finally {
    db.close();
  }
}

/**
 * Asks the person for the data folder, and remembers it. Call it from a click: the picker
 * needs one. Rejects when the person cancels (`AbortError`) or the browser has no picker.
 */
export async function pickDataFolder(
  options: BrowserFolderOptions = {},
): Promise<FileSystemDirectoryHandle> {
  const picker = pickerOf(options);
  if (!picker) {
    throw new TypeError('this browser cannot pick a folder: keep the data in IndexedDB instead');
  }
  const handle = await picker(PICKER_OPTIONS);
  await withHandles(options, 'readwrite', (store) => store.put(handle, HANDLE_KEY));
  return handle;
}

/** The folder remembered from an earlier visit, and whether it may be used without a click. */
export interface RememberedFolder {
  handle: FileSystemDirectoryHandle;
  /** `granted`: use it now. `prompt`: show a button whose click calls {@link allowDataFolder}. */
  permission: Permission;
}

/** The remembered folder, if any, with its permission now. It never asks the person. */
export async function rememberedDataFolder(
  options: BrowserFolderOptions = {},
): Promise<RememberedFolder | undefined> {
  const handle = (await withHandles(options, 'readonly', (store) => store.get(HANDLE_KEY))) as
    | FileSystemDirectoryHandle
    | undefined;
  if (!handle || typeof handle.getDirectoryHandle !== 'function') return undefined;
  const query = (handle as PermissionHandle).queryPermission;
  const permission = query ? await query.call(handle, { mode: 'readwrite' }) : 'granted';
  return { handle, permission };
}

/** Asks again for the remembered folder's permission. Call it from a click. True if granted. */
export async function allowDataFolder(handle: FileSystemDirectoryHandle): Promise<boolean> {
  const ask = (handle as PermissionHandle).requestPermission;
  if (!ask) return true;
  return (await ask.call(handle, { mode: 'readwrite' })) === 'granted';
}

/** Forgets the remembered folder (the folder itself is untouched). */
export async function forgetDataFolder(options: BrowserFolderOptions = {}): Promise<void> {
  await withHandles(options, 'readwrite', (store) => store.delete(HANDLE_KEY));
}

/** Options of {@link browserDataFolderStores}. */
export interface BrowserDataFolderOptions {
  /** The account's data path, such as `accounts/k3x9q2/stores`. */
  dataPath: string;
  /** The folder, from {@link pickDataFolder} or {@link rememberedDataFolder}; none: IndexedDB. */
  folder?: FileSystemDirectoryHandle;
  /** `indexedDBStores` from `@minca/idb` (passed in, so this package does not depend on it). */
  indexedDBStores: (prefix: string) => StoreFactory;
  /** Where in the folder the account lives, and its registry's key: see `folderStores`. */
  basePath?: string;
  localKey: Uint8Array;
  watchIntervalMs?: number;
  onProblem?: (problem: MincaError) => void;
}

/**
 * A node's stores in the browser for a data folder: with a folder, `folderStores` over it with
 * the folder's own stores in IndexedDB under `minca-pod:<dataPath>`; without one (no picker in
 * this browser), everything in those IndexedDB stores.
 *
 * ```ts
 * import { indexedDBStores } from '@minca/idb';
 * const remembered = await rememberedDataFolder();
 * const stores = browserDataFolderStores({
 *   dataPath, localKey, indexedDBStores,
 *   folder: remembered?.permission === 'granted' ? remembered.handle : undefined,
 * });
 * ```
 */
export function browserDataFolderStores(
  options: BrowserDataFolderOptions,
): FolderStoreFactory | StoreFactory {
  const local = options.indexedDBStores(podStoresPrefix(options.dataPath));
  if (!options.folder) return local;
  return folderStores(options.folder, {
    localKey: options.localKey,
    local,
    ...(options.basePath !== undefined ? { basePath: options.basePath } : {}),
    ...(options.watchIntervalMs !== undefined ? { watchIntervalMs: options.watchIntervalMs } : {}),
    ...(options.onProblem ? { onProblem: options.onProblem } : {}),
  });
}
