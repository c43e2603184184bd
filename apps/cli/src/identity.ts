/**
 * Who this device is for an account: its certified device key, the writer keys of the nodes it
 * runs, and (for a data folder) the registry key, all from its local state; and the account's
 * root key, when an act needs it (adding or removing a device, ending an agent).
 */
import type { SigningKey } from '@minca/core';
import { type LocalStatePaths, localStatePaths } from '@minca/folder';
import { type Account, loadHomeRoot } from './account.js';
import { CliError, EXIT } from './cli-error.js';
import { DeviceBook } from './device-book.js';
import {
  type CertifiedKey,
  certifyNewDevice,
  keepDevice,
  readDevice,
  readLocalRoot,
  readRegistryKey,
  writerKey,
} from './device-state.js';
import { openRecovery } from './recovery.js';
import { askSecret } from './secret-input.js';

/** This device, for one account. */
export interface DeviceIdentity {
  account: Account;
  paths: LocalStatePaths;
  device: CertifiedKey;
  /** A data folder's registry key. */
  registryKey?: Uint8Array;
}

/** The name people see for this device when none is given. */
export async function defaultLabel(): Promise<string> {
  const { hostname } = await import('node:os');
  return hostname().slice(0, 100) || 'device';
}

export function pathsOf(account: Account, env: NodeJS.ProcessEnv): Promise<LocalStatePaths> {
  return localStatePaths({ home: account.home, accountId: account.id, env });
}

const notJoined = (account: Account) =>
  new CliError(
    EXIT.noAccount,
    `this device holds no key for the account in ${account.home}: add it with ` +
      `\`minca device join --folder ${account.home}\` (a pairing code from one of your devices, ` +
      'or --passphrase for the recovery passphrase)',
  );

/**
 * This device's identity for `account`. A home account's device key is made on first use
 * (older homes had none); a data folder's device must have joined (`minca device join`).
 */
export async function openIdentity(
  account: Account,
  env: NodeJS.ProcessEnv,
): Promise<DeviceIdentity> {
  const paths = await pathsOf(account, env);
  let device = await readDevice(paths, account.did);
  if (!account.folder) {
    device ??= await keepDevice(
      paths,
      await certifyNewDevice(await loadHomeRoot(account), await defaultLabel()),
    );
    return { account, paths, device };
  }
  const registryKey = await readRegistryKey(paths);
  if (!device || !registryKey) throw notJoined(account);
  const record = await new DeviceBook(account.home, account.did, registryKey).get(device.key.did);
  if (record?.removed !== undefined) {
    throw new CliError(
      EXIT.refused,
      `this device was removed from the account on ${new Date(record.removed).toISOString()}: ` +
        `join it again with \`minca device join --folder ${account.home}\``,
    );
  }
  return { account, paths, device, registryKey };
}

/** The certificates a node of writer key `writer` passes to `createNode`. */
export const chainOf = (identity: DeviceIdentity, writer: CertifiedKey) => [
  identity.device.cert.bytes,
  writer.cert.bytes,
];

/** The writer key of this device's own node for the account. */
export const nodeWriter = (identity: DeviceIdentity) =>
  writerKey(identity.paths, 'node', identity.device, { label: 'node' });

/**
 * The account's root key, for what only the root may do: from the home (`account.key`), from
 * this device's state (the device that made a data folder), or unwrapped from the folder's
 * recovery file with the passphrase (`MINCA_PASSPHRASE`, or typed).
 */
export async function rootKey(
  identity: DeviceIdentity,
  env: NodeJS.ProcessEnv,
  why: string,
): Promise<SigningKey> {
  const { account } = identity;
  if (!account.folder) return loadHomeRoot(account);
  const kept = await readLocalRoot(identity.paths, account.did);
  if (kept) return kept;
  const passphrase = await askSecret({
    env,
    variable: 'MINCA_PASSPHRASE',
    what: `the recovery passphrase (${why} needs the account's root key)`,
  });
  return (await openRecovery(account.home, account.did, passphrase)).root;
}
