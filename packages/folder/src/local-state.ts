/**
 * Where the CLI keeps this device's own stores for a data folder (spec 05 §14.6): outside the
 * folder, since a browser or a sync service may use the folder too.
 *
 * ```
 * $MINCA_LOCAL or ~/.local/state/minca
 *   <first 16 hex of SHA-256 of the home's absolute path>/
 *     <account id>/
 *       stores/        this device's stores (folderStores' `local`)
 *       writer-keys/   the writer keys this device signs with
 * ```
 *
 * Only this slot is read: older slots left in the home, and a `writers/` folder, never are,
 * so two versions of minca never sign with one key.
 */
import { hashId } from '@minca/core';

/** Options of {@link localStatePaths}. */
export interface LocalStateOptions {
  /** The minca home (the folder the CLI was pointed at); made absolute before it is hashed. */
  home: string;
  /** The account's id: one name of `[A-Za-z0-9._-]`, not `.` or `..`. */
  accountId: string;
  /** The environment to read `MINCA_LOCAL` from. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The user's home folder, for `~/.local/state/minca`. Default `os.homedir()`. */
  userHome?: string;
}

/** The paths of one account's local state. */
export interface LocalStatePaths {
  /** `$MINCA_LOCAL` or `~/.local/state/minca`. */
  base: string;
  /** `<base>/<16 hex>/<account id>`. */
  account: string;
  /** `<account>/stores`: pass `directoryStores(stores)` as folderStores' `local`. */
  stores: string;
  /** `<account>/writer-keys`. */
  writerKeys: string;
}

const ACCOUNT_ID = /^[A-Za-z0-9._-]{1,200}$/;

/** The first 16 hex characters of SHA-256 of `path`'s UTF-8: a home's slot name. */
export function homeSlot(path: string): string {
  const digest = hashId(new TextEncoder().encode(path));
  return Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The local state paths of `accountId` for the minca home `home`. It makes nothing: the
 * directory stores over `stores` make their folders (mode 0700) on first write.
 *
 * ```ts
 * const paths = await localStatePaths({ home: '/home/me/pod', accountId });
 * const stores = folderStores('/home/me/pod', {
 *   localKey,
 *   local: directoryStores(paths.stores),
 * });
 * ```
 */
export async function localStatePaths(options: LocalStateOptions): Promise<LocalStatePaths> {
  const { home, accountId } = options;
  if (typeof home !== 'string' || home.length === 0) {
    throw new TypeError('home must be a non-empty path');
  }
  if (typeof accountId !== 'string' || !ACCOUNT_ID.test(accountId) || /^\.\.?$/.test(accountId)) {
    throw new TypeError(`accountId must be one name of [A-Za-z0-9._-], not ${accountId}`);
  }
  const [path, os] = await Promise.all([import('node:path'), import('node:os')]);
  const env = options.env ?? process.env;
  const fromEnv = env.MINCA_LOCAL;
  const base = path.resolve(
    fromEnv && fromEnv.length > 0
      ? fromEnv
      : path.join(options.userHome ?? os.homedir(), '.local', 'state', 'minca'),
  );
  const account = path.join(base, homeSlot(path.resolve(home)), accountId);
  return {
    base,
    account,
    stores: path.join(account, 'stores'),
    writerKeys: path.join(account, 'writer-keys'),
  };
}
