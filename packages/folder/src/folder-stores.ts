/**
 * `folderStores`: a node's stores for a data folder, the whole account in one folder that a
 * USB stick, Dropbox, iCloud or Syncthing can carry (spec 05 §14).
 *
 * ```
 * <folder>/<basePath>/registry/   the registry, one sealed file per entry (synced-folder-adapter.ts)
 * <folder>/<basePath>/spaces/     each space as mirror segments, through a directory blob store
 * ```
 *
 * Everything else (each space's own store, mirror state, file chunks, the registry's journal)
 * goes in `local`, this device's own stores.
 */
import {
  type BlobStore,
  isMincaError,
  MincaError,
  type MirrorConfig,
  type StorageAdapter,
  type StoreFactory,
  sealedStores,
} from '@minca/core';
import { folderPath } from './file-names.js';
import { subFolder } from './folder-fs.js';
import { type FolderSource, toFolderFs } from './folder-source.js';
import { folderSpacesStore } from './folder-spaces-store.js';
import { SyncedFolderAdapter } from './synced-folder-adapter.js';

/** How often a data folder's spaces are pulled while open, by default (ms). */
export const DEFAULT_WATCH_INTERVAL_MS = 2000;
/** How soon after a change a data folder's space is pushed (ms). */
export const FOLDER_PUSH_DELAY_MS = 1000;
/** The store path of the registry, the one store kept in the folder itself. */
const REGISTRY = 'registry';
/** Where in `local` the registry's journal of batches lives (spec 05 §14.3). */
export const REGISTRY_JOURNAL_PATH = 'folder-journal/registry';

const PATH = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

/** Options of {@link folderStores}. */
export interface FolderStoresOptions {
  /**
   * Where in the folder this account lives, as `/`-separated parts of `[A-Za-z0-9._-]`
   * (`accounts/k3x9q2`). Default: the folder itself.
   */
  basePath?: string;
  /** The 32-byte key the registry is sealed under in the folder. */
  localKey: Uint8Array;
  /**
   * This device's own stores: every store but the registry. Required, since a key's state
   * kept only in memory would be reused after a restart. Its owner closes it.
   */
  local: StoreFactory;
  /** Pull period of an open space, ms: 2,000 by default; 0 pulls only when a space opens. */
  watchIntervalMs?: number;
  /** Flush files to the device before a write resolves (fsync). Default true. */
  sync?: boolean;
  /** Told of damage found in the folder and skipped. Default `console.warn`. */
  onProblem?: (problem: MincaError) => void;
}

/** The store factory of a data folder. */
export interface FolderStoreFactory extends StoreFactory {
  /** The folder's spaces, `<basePath>/spaces/`, mirrored with a 1 s push delay. */
  readonly mirrors: readonly MirrorConfig[];
  /** The blob store over `<basePath>/spaces/`. */
  readonly spaces: BlobStore;
  /**
   * Reads again every local store this factory opened that can reload (directory stores do),
   * and gives the paths of those that changed. See {@link reconcileFolder}.
   */
  reload(): Promise<string[]>;
  /** Closes the registry's files; `local` stays open (it is the caller's). */
  close(): Promise<void>;
}

/** What {@link reconcileFolder} needs of a node: `MincaNode` has it. */
export interface InvalidatingNode {
  invalidate(spaceIds?: readonly string[]): Promise<void>;
}

interface Reloadable extends StorageAdapter {
  reload?(): Promise<unknown>;
  isClosed?: boolean;
}

/**
 * The stores of a data folder: its registry in the folder, sealed under `localKey`; its spaces
 * as segments under `<basePath>/spaces/`, which the node mirrors to (pulling when a space opens
 * and every `watchIntervalMs`, pushing 1 s after a change and on close); everything else in
 * `local`. It refuses to start without `local`.
 *
 * ```ts
 * const paths = await localStatePaths({ home: '/media/usb/pod', accountId });
 * const stores = folderStores('/media/usb/pod', {
 *   basePath: `accounts/${accountId}`,
 *   localKey,
 *   local: directoryStores(paths.stores),
 * });
 * const node = await createNode({ stores, key });
 * ```
 */
export function folderStores(
  directory: FolderSource,
  options: FolderStoresOptions,
): FolderStoreFactory {
  const { local, localKey } = options ?? ({} as Partial<FolderStoresOptions>);
  if (!local || typeof local.open !== 'function') {
    throw new MincaError(
      'invalid_input',
      'folderStores needs `local`, this device’s own stores (such as directoryStores of the ' +
        'local state path): state kept only in memory would reuse a key after a restart',
    );
  }
  if (!(localKey instanceof Uint8Array) || localKey.length !== 32) {
    throw new MincaError('invalid_input', 'folderStores needs `localKey`, 32 bytes');
  }
  const basePath = options.basePath ?? '';
  if (
    typeof basePath !== 'string' ||
    (basePath !== '' && (!PATH.test(basePath) || basePath.split('/').some((p) => /^\.+$/.test(p))))
  ) {
    throw new MincaError(
      'invalid_name',
      `basePath ${JSON.stringify(String(basePath).slice(0, 80))} is not /-separated parts of ` +
        '[A-Za-z0-9._-] (none only dots)',
    );
  }
  const watch = options.watchIntervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
  if (!Number.isSafeInteger(watch) || watch < 0) {
    throw new MincaError('invalid_input', 'watchIntervalMs is a whole number of ms, 0 or more');
  }
  const sync = options.sync ?? true;
  const onProblem = options.onProblem ?? ((problem: MincaError) => console.warn(problem.message));
  const base = subFolder(toFolderFs(directory), basePath === '' ? [] : folderPath(basePath));

  const inFolder = new Map<string, Promise<SyncedFolderAdapter>>();
  const sealed = sealedStores(
    {
      async open(path) {
        const known = await inFolder.get(path)?.catch(() => undefined);
        if (known && !known.isClosed) return known;
        const opening = (async () =>
          SyncedFolderAdapter.open(
            base,
            folderPath(path),
            path,
            await local.open(`folder-journal/${path}`),
            { sync, onProblem },
          ))();
        inFolder.set(path, opening);
        return opening;
      },
    },
    localKey,
  );

  /** The registry, checked to open under `localKey` before anything writes to it. */
  const openRegistry = async (): Promise<StorageAdapter> => {
    const registry = await sealed.open(REGISTRY);
    try {
      await registry.list('');
    } catch (cause) {
      await registry.close?.();
      if (!isMincaError(cause, 'corrupt')) throw cause;
      throw new MincaError(
        'corrupt',
        'the registry in this folder does not open under this localKey: it is another ' +
          'account’s, or the key is wrong. Nothing was written.',
        { cause },
      );
    }
    return registry;
  };

  const spaces = folderSpacesStore(subFolder(base, ['spaces']), { sync });
  const opened = new Map<string, Reloadable>();
  let closed = false;

  return {
    ...(local.bodyCache ? { bodyCache: local.bodyCache } : {}),
    mirrors: [{ store: spaces, pushDelayMs: FOLDER_PUSH_DELAY_MS, pullIntervalMs: watch }],
    spaces,
    async open(path: string): Promise<StorageAdapter> {
      if (closed) throw new MincaError('closed', 'these folder stores are closed');
      if (path === REGISTRY) return openRegistry();
      const adapter = (await local.open(path)) as Reloadable;
      opened.set(path, adapter);
      return adapter;
    },
    async reload(): Promise<string[]> {
      const changed: string[] = [];
      for (const [path, adapter] of opened) {
        if (adapter.isClosed) {
          opened.delete(path);
          continue;
        }
        if (typeof adapter.reload !== 'function') continue;
        if ((await adapter.reload()) !== false) changed.push(path);
      }
      return changed;
    },
    async close(): Promise<void> {
      closed = true;
      const adapters = await Promise.all(
        [...inFolder.values()].map((opening) => opening.catch(() => undefined)),
      );
      await Promise.all(adapters.map((adapter) => adapter?.close()));
    },
  };
}

const SPACE_STORE = /^spaces\/([a-z2-7]{26})$/;

/**
 * What a daemon calls every 2 s to find writes another process (a `minca` command) made to
 * this device's local stores of a data folder: reads the stores again, then has the node
 * read the spaces that changed (and its registry) again, so their listeners and peers hear of
 * the new records. Returns the ids of the spaces that changed.
 *
 * ```ts
 * setInterval(() => void reconcileFolder(node, stores), 2000);
 * ```
 */
export async function reconcileFolder(
  node: InvalidatingNode,
  stores: Pick<FolderStoreFactory, 'reload'>,
): Promise<string[]> {
  const changed = await stores.reload();
  const spaces = changed.flatMap((path) => SPACE_STORE.exec(path)?.[1] ?? []);
  await node.invalidate(spaces);
  return spaces;
}
