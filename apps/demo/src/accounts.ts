/**
 * Accounts kept in this browser (seed, "IndexedDB"): each in `minca-accounts` (object store
 * `accounts`), its keys in `minca-device-keys` (object store `keys`, see device-keys.ts), both
 * keyed by the account id. The account's stores are `minca:accounts:<id>:stores:<path>`.
 */
import type { PreparedImage } from '@minca/std';
import { openDB } from 'idb';
import { createKeys, deleteKeys, type Signer } from './device-keys.js';

export interface Account {
  /** Six base-36 characters, such as `k3x9q2`: short enough for a database name. */
  id: string;
  /** The account's DID: its root key's. Its node signs with a writer key certified for it. */
  did: string;
  /** The person's name, written into each space they are in as their `std.profile`. */
  name: string;
  /** Their avatar, resized (`prepareAvatar`), added to each space with their profile. */
  avatar?: PreparedImage;
  created: number;
  /** Where its data lives: IndexedDB (the default), or a data folder the person picked. */
  storage?: 'indexeddb' | 'folder';
  /** Apps the person connected to this account (spec 05 §18), latest last. */
  apps?: ConnectedApp[];
}

/** An app connected to the account: who it is, its writer key, and the spaces it may use. */
export interface ConnectedApp {
  origin: string;
  name: string;
  /** The DID of the app's own writer key, which the root certified. */
  writer: string;
  spaces: string[];
  connected: number;
  /** When the person disconnected it: from then on its key's versions don't stand. */
  disconnected?: number;
}

const ACCOUNTS_DB = 'minca-accounts';

const accountsDb = () =>
  openDB(ACCOUNTS_DB, 1, { upgrade: (db) => void db.createObjectStore('accounts') });

/** An account's data path; in IndexedDB its stores are `minca:` and this, `/` as `:`. */
export const dataPath = (id: string) => `accounts/${id}/stores`;
export const storesPrefix = (id: string) => `minca:${dataPath(id).replaceAll('/', ':')}`;

/**
 * The key a data folder's registry is sealed under, derived from the account's root without
 * reading it: Ed25519 signatures are deterministic (RFC 8032), so the root's signature of a
 * fixed message is a secret only a holder of the root can make, the same on every device that
 * has it. HKDF turns it into the key.
 */
export async function folderLocalKey(root: Signer): Promise<Uint8Array> {
  const signature = await root.sign(new TextEncoder().encode('minca-demo/data-folder-key/v1'));
  const ikm = await crypto.subtle.importKey('raw', signature.slice(), 'HKDF', false, [
    'deriveBits',
  ]);
  const bits = await crypto.subtle.deriveBits(
    {
      name: 'HKDF',
      hash: 'SHA-256',
      salt: new Uint8Array(0),
      info: new TextEncoder().encode('minca-demo/data-folder-registry/v1'),
    },
    ikm,
    256,
  );
  return new Uint8Array(bits);
}

function accountId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return [...bytes].map((b) => (b % 36).toString(36)).join('');
}

export async function listAccounts(): Promise<Account[]> {
  const db = await accountsDb();
  try {
    const all = (await db.getAll('accounts')) as Account[];
    return all.sort((a, b) => a.created - b.created);
  } finally {
    db.close();
  }
}

/** Makes an account: its root, this device's key and a writer key, kept in this browser. */
export async function createAccount(
  name: string,
  storage: Account['storage'] = 'indexeddb',
): Promise<Account> {
  const trimmed = name.trim();
  if (!trimmed) throw new TypeError('an account needs a name');
  const id = accountId();
  // The keys first: an account listed without its keys could never sign.
  const did = await createKeys(id);
  const account: Account = { id, did, name: trimmed, created: Date.now(), storage };
  const db = await accountsDb();
  try {
    await db.put('accounts', account, account.id);
  } finally {
    db.close();
  }
  return account;
}

/** Changes the account's name or avatar (`avatar: undefined` removes it). */
export async function updateAccount(
  id: string,
  change: { name: string; avatar: PreparedImage | undefined },
): Promise<Account> {
  const name = change.name.trim();
  if (!name) throw new TypeError('a name is needed');
  const db = await accountsDb();
  try {
    const account = (await db.get('accounts', id)) as Account | undefined;
    if (!account) throw new TypeError(`account ${id} is not in this browser`);
    const next: Account = { ...account, name };
    if (change.avatar) next.avatar = change.avatar;
    else delete next.avatar;
    await db.put('accounts', next, id);
    return next;
  } finally {
    db.close();
  }
}

/** Remembers that `app` was connected to account `id`. */
export async function rememberApp(id: string, app: ConnectedApp): Promise<void> {
  const db = await accountsDb();
  try {
    const account = (await db.get('accounts', id)) as Account | undefined;
    if (!account) throw new TypeError(`account ${id} is not in this browser`);
    await db.put('accounts', { ...account, apps: [...(account.apps ?? []), app] }, id);
  } finally {
    db.close();
  }
}

/** Notes that the app with writer key `writer` was disconnected from account `id` at `at`. */
export async function disconnectedApp(id: string, writer: string, at: number): Promise<void> {
  const db = await accountsDb();
  try {
    const account = (await db.get('accounts', id)) as Account | undefined;
    if (!account) throw new TypeError(`account ${id} is not in this browser`);
    const apps = (account.apps ?? []).map((a) =>
      a.writer === writer ? { ...a, disconnected: at } : a,
    );
    await db.put('accounts', { ...account, apps }, id);
  } finally {
    db.close();
  }
}

/** Gives account `id` as this browser holds it now. */
export async function getAccount(id: string): Promise<Account | undefined> {
  const db = await accountsDb();
  try {
    return (await db.get('accounts', id)) as Account | undefined;
  } finally {
    db.close();
  }
}

/** Forgets account `id` in this browser: its entry and its keys (not its stores). */
export async function removeAccount(id: string): Promise<void> {
  const db = await accountsDb();
  try {
    await db.delete('accounts', id);
  } finally {
    db.close();
  }
  await deleteKeys(id);
}
