/**
 * The account in its home: `account.json` (its id and DID, the root key's), and for a home that
 * is not a data folder `account.key`, the root key's secret, mode 0600. A data folder holds
 * `account.json` only, with no secret at all: the root key lives on the device that made the
 * account (spec 05 §14.11) and, wrapped under the recovery passphrase, in `recovery.minca`.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SigningKey } from '@minca/core';
import { CliError, EXIT } from './cli-error.js';
import { exists, readPrivateFile, writeFileAtomic } from './secure-files.js';

export const ACCOUNT_FILE = 'account.json';
/** The root key of an account in a home folder (never in a data folder). */
export const KEY_FILE = 'account.key';

export interface Account {
  /** 16 hex characters, naming the account's local state. */
  id: string;
  /** The account's DID: its root key's. */
  did: string;
  /** The home folder, absolute. */
  home: string;
  /** True when the home is a data folder: the registry and spaces live in it too. */
  folder?: boolean;
  created: number;
}

/** Makes a new account in `home`, with a new root key; refuses when one is there. */
export async function createAccount(
  home: string,
  options: {
    folder?: boolean;
    /** Runs before `account.json` is written: an account file always has what it needs. */
    prepare?: (account: Account, root: SigningKey) => Promise<void>;
  } = {},
): Promise<{ account: Account; root: SigningKey }> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  if (await exists(join(home, ACCOUNT_FILE))) {
    throw new CliError(
      EXIT.usage,
      options.folder
        ? `${home} already holds an account: add this device to it with \`minca device join --folder ${home}\``
        : `${home} already holds an account: use it, or pass --home for another`,
    );
  }
  const root = SigningKey.generate();
  const account: Account = {
    id: randomBytes(8).toString('hex'),
    did: root.did,
    home,
    ...(options.folder ? { folder: true } : {}),
    created: Date.now(),
  };
  // A data folder is copied about: it says nothing of the machine it was made on.
  const { home: _home, ...inFolder } = account;
  const json = `${JSON.stringify(options.folder ? inFolder : account, null, 2)}\n`;
  if (!options.folder) {
    // The key first: an account file in a home always has its key.
    await writeFileAtomic(join(home, KEY_FILE), Buffer.from(root.exportSecret()), 0o600);
  }
  await options.prepare?.(account, root);
  await writeFileAtomic(join(home, ACCOUNT_FILE), json, 0o600);
  return { account, root };
}

/** The account in `home` (no key); `noAccount` when there is none. */
export async function loadAccount(home: string): Promise<Account> {
  let text: string;
  try {
    text = await readFile(join(home, ACCOUNT_FILE), 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CliError(EXIT.noAccount, `no account in ${home}: run \`minca init\` first`);
    }
    throw cause;
  }
  let account: Account;
  try {
    account = JSON.parse(text) as Account;
    if (typeof account.id !== 'string' || !/^[0-9a-f]{16}$/.test(account.id)) throw 0;
    if (typeof account.did !== 'string' || !account.did.startsWith('did:key:z')) throw 0;
  } catch (cause) {
    throw new CliError(EXIT.badData, `${join(home, ACCOUNT_FILE)} is damaged`, { cause });
  }
  account.home = home;
  if (account.folder === true && (await exists(join(home, KEY_FILE)))) {
    throw new CliError(
      EXIT.badData,
      `${home} holds ${KEY_FILE}, as data folders made by an older minca did: whoever has a copy ` +
        'of it holds the account. Make a new folder (`minca init --folder <new>`), move your ' +
        'spaces to it through invites, and delete this one.',
    );
  }
  return account;
}

/** The root key of an account in a home folder (`account.key`). */
export async function loadHomeRoot(account: Account): Promise<SigningKey> {
  const path = join(account.home, KEY_FILE);
  const secret = await readPrivateFile(path);
  if (!secret) throw new CliError(EXIT.badData, `the account key ${path} is missing`);
  if (secret.length !== 32) throw new CliError(EXIT.badData, `the account key ${path} is damaged`);
  const key = SigningKey.fromSecret(secret);
  if (key.did !== account.did) {
    throw new CliError(EXIT.badData, `the account key ${path} is not this account's`);
  }
  return key;
}
