/**
 * "Forget this browser's copy" (seed, "IndexedDB"): deletes every `minca:` database of the
 * account (its registry and each space's store), its keys in `minca-device-keys`, its entry in
 * `minca-accounts` and its posts-waiting counts. A data folder's own stores are under
 * `minca-pod:`, which this leaves alone: the folder is the account's copy too, and forgetting
 * the browser's copy must not cost it the stores that say what the folder already holds.
 * Run once the node over those stores is closed.
 */
import { deleteDB } from 'idb';
import { removeAccount, storesPrefix } from '../accounts.js';
import { Outbox } from './outbox.js';

/** The names of the databases deleted, for the page to say so. */
export async function forgetBrowserCopy(account: string): Promise<string[]> {
  // `minca:accounts:<id>:stores:…`: the ':' after the prefix keeps another account out.
  const prefix = `${storesPrefix(account)}:`;
  const names = (await indexedDB.databases())
    .map((d) => d.name ?? '')
    .filter((name) => name.startsWith(prefix));
  // A store open elsewhere closes when asked to (see @minca/idb), so no deletion waits long.
  for (const name of names) await deleteDB(name);
  await Outbox.forget(account);
  await removeAccount(account);
  return names;
}
