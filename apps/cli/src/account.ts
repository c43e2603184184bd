/**
 * The account in a home folder: `account.json` (its id, DID and where its data lives) and
 * `account.key`, the signing key's secret, mode 0600. The key is read here and handed to the
 * node; it is never printed. The stores live outside the home, in this device's local state.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SigningKey } from '@minca/core';
import { CliError, EXIT } from './cli-error.js';

export const ACCOUNT_FILE = 'account.json';
export const KEY_FILE = 'account.key';

export interface Account {
  /** 16 hex characters, naming the account's local state. */
  id: string;
  did: string;
  /** The home folder, absolute. */
  home: string;
  /** True when the home is a data folder: the registry and spaces live in it too. */
  folder?: boolean;
  created: number;
}

/**
 * The key an account's data folder seals its registry under: derived from the account key, so
 * whoever holds the folder with its key opens it, and nobody else.
 */
export function folderKey(key: SigningKey): Uint8Array {
  return new Uint8Array(
    createHash('sha256').update('minca/cli/folder-key/v1').update(key.exportSecret()).digest(),
  );
}

/** Writes a file whole: `<name>.<random>.tmp` with `mode`, flushed, renamed into place. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600) {
  const tmp = `${path}.${randomBytes(8).toString('hex')}.tmp`;
  const handle = await open(tmp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
}

/** Makes a new account in `home`; refuses when one is there. */
export async function createAccount(
  home: string,
  options: { folder?: boolean } = {},
): Promise<{ account: Account; key: SigningKey }> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  if (await exists(join(home, ACCOUNT_FILE))) {
    throw new CliError(
      EXIT.usage,
      `${home} already holds an account: use it, or pass --home for another`,
    );
  }
  const key = SigningKey.generate();
  const account: Account = {
    id: randomBytes(8).toString('hex'),
    did: key.did,
    home,
    ...(options.folder ? { folder: true } : {}),
    created: Date.now(),
  };
  // The key first: an account file always has its key.
  await writeFileAtomic(join(home, KEY_FILE), Buffer.from(key.exportSecret()), 0o600);
  await writeFileAtomic(join(home, ACCOUNT_FILE), `${JSON.stringify(account, null, 2)}\n`, 0o600);
  return { account, key };
}

/** The account in `home`, with its key; `noAccount` when there is none. */
export async function loadAccount(home: string): Promise<{ account: Account; key: SigningKey }> {
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
    if (typeof account.did !== 'string') throw 0;
  } catch (cause) {
    throw new CliError(EXIT.badData, `${join(home, ACCOUNT_FILE)} is damaged`, { cause });
  }
  account.home = home;
  const keyPath = join(home, KEY_FILE);
  const info = await stat(keyPath).catch(() => undefined);
  if (!info) throw new CliError(EXIT.badData, `the account key ${keyPath} is missing`);
  // Tighten a key file someone loosened, rather than sign with a key others may read.
  if ((info.mode & 0o077) !== 0) await chmod(keyPath, 0o600);
  const secret = new Uint8Array(await readFile(keyPath));
  if (secret.length !== 32)
    throw new CliError(EXIT.badData, `the account key ${keyPath} is damaged`);
  const key = SigningKey.fromSecret(secret);
  if (key.did !== account.did) {
    throw new CliError(EXIT.badData, `the account key ${keyPath} is not this account's`);
  }
  return { account, key };
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}
