/** Where a node keeps each store, and opening one: the one place a node's stores are opened. */
import type { StoreFactory } from '../adapter.js';
import { Store } from '../store.js';

/** Store path of a space. */
export const spaceStorePath = (id: string) => `spaces/${id}`;
export const REGISTRY_PATH = 'registry';

/** Opens the store at `path`, sharing the factory's body cache when it has one. */
export async function openStore(stores: StoreFactory, path: string): Promise<Store> {
  return Store.open(await stores.open(path), { bodyCache: stores.bodyCache });
}
