/**
 * Accounts kept in this browser (seed, "IndexedDB"): each in `minca-accounts` (object store
 * `accounts`), its key's secret in `minca-device-keys` (object store `keys`), both keyed by the
 * account id. The account's stores are `minca:accounts:<id>:stores:<path>`.
 */
import { SigningKey } from '@minca/core';
import type { PreparedImage } from '@minca/std';
import { openDB } from 'idb';

export interface Account {
  /** Six base-36 characters, such as `k3x9q2`: short enough for a database name. */
  id: string;
  /** The account's root DID, which its node signs as. */
  did: string;
  /** The person's name, written into each space they are in as their `std.profile`. */
  name: string;
  /** Their avatar, resized (`prepareAvatar`), added to each space with their profile. */
  avatar?: PreparedImage;
  created: number;
  /** Where its data lives: IndexedDB (the default), or a data folder the person picked. */
  storage?: 'indexeddb' | 'folder';
}

const ACCOUNTS_DB = 'minca-accounts';
const KEYS_DB = 'minca-device-keys';

const accountsDb = () =>
  openDB(ACCOUNTS_DB, 1, { upgrade: (db) => void db.createObjectStore('accounts') });
const keysDb = () => openDB(KEYS_DB, 1, { upgrade: (db) => void db.createObjectStore('keys') });

/** An account's data path; in IndexedDB its stores are `minca:` and this, `/` as `:`. */
export const dataPath = (id: string) => `accounts/${id}/stores`;
export const storesPrefix = (id: string) => `minca:${dataPath(id).replaceAll('/', ':')}`;

/**
 * The key a data folder's registry is sealed under: derived from the account's key (HKDF), so
 * every device of the account opens the same folder.
 */
export async function folderLocalKey(secret: Uint8Array): Promise<Uint8Array> {
  const ikm = await crypto.subtle.importKey('raw', secret.slice(), 'HKDF', false, ['deriveBits']);
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

/** Makes an account: a fresh key, kept in this browser. */
export async function createAccount(
  name: string,
  storage: Account['storage'] = 'indexeddb',
): Promise<Account> {
  const trimmed = name.trim();
  if (!trimmed) throw new TypeError('an account needs a name');
  const key = SigningKey.generate();
  const account: Account = {
    id: accountId(),
    did: key.did,
    name: trimmed,
    created: Date.now(),
    storage,
  };
  // The key first: an account listed without its key could never sign.
  const keys = await keysDb();
  try {
    await keys.put('keys', key.exportSecret(), account.id);
  } finally {
    keys.close();
  }
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

/** The account's signing key, or `undefined` when this browser does not hold it. */
export async function accountKey(id: string): Promise<SigningKey | undefined> {
  const keys = await keysDb();
  try {
    const secret = (await keys.get('keys', id)) as Uint8Array | undefined;
    return secret ? SigningKey.fromSecret(secret) : undefined;
  } finally {
    keys.close();
  }
}
