/**
 * This device's keys for an account, in its local state (spec 05 §14.6, §14.11), never in a
 * data folder:
 *
 * ```
 * <local>/device.key            CBOR { v: 1, k: device secret, c: device certificate }
 * <local>/registry.key          a data folder's registry key, 32 bytes
 * <local>/root.key              a data folder's root key, on the device that made the account
 * <local>/writer-keys/<name>.key  CBOR { v: 1, k: writer secret, c: writer certificate }
 * ```
 *
 * Files 0600, folders 0700. The root certifies the device key; the device certifies the writer
 * key of each node it runs (`node`, `agent-<slot>`), so every node signs with a lasting key of
 * its own and two devices of one account never sign with one key.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Certificate,
  decodeCertificate,
  decodeStrict,
  encodeCbor,
  issueCertificate,
  SigningKey,
  verifyCertificate,
} from '@minca/core';
import type { LocalStatePaths } from '@minca/folder';
import { CliError, EXIT } from './cli-error.js';
import { createFileOnce, readPrivateFile } from './secure-files.js';

const FORMAT = 1;
export const DEVICE_FILE = 'device.key';
export const REGISTRY_KEY_FILE = 'registry.key';
export const ROOT_FILE = 'root.key';
const MAX_KEY_FILE = 32 * 1024;
const WRITER_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** A key with the certificate that vouches for it. */
export interface CertifiedKey {
  key: SigningKey;
  cert: Certificate;
}

const encodeCertified = ({ key, cert }: CertifiedKey) =>
  encodeCbor({ v: FORMAT, k: key.exportSecret(), c: cert.bytes });

async function decodeCertified(
  path: string,
  bytes: Uint8Array,
  expect: { kind: 'device' | 'writer'; account: string; issuer: string },
): Promise<CertifiedKey> {
  const damaged = (why: string, cause?: unknown) =>
    new CliError(EXIT.badData, `${path} is damaged: ${why}`, cause ? { cause } : undefined);
  let m: Record<string, unknown>;
  try {
    m = decodeStrict(bytes, { maxBytes: MAX_KEY_FILE, maxDepth: 1 }) as Record<string, unknown>;
  } catch (cause) {
    throw damaged('it does not decode', cause);
  }
  if (m?.v !== FORMAT || !(m.k instanceof Uint8Array) || m.k.length !== 32)
    throw damaged('no key in it');
  if (!(m.c instanceof Uint8Array)) throw damaged('no certificate in it');
  const key = SigningKey.fromSecret(m.k);
  let cert: Certificate;
  try {
    cert = decodeCertificate(m.c);
    await verifyCertificate(cert);
  } catch (cause) {
    throw damaged('its certificate does not verify', cause);
  }
  if (
    cert.kind !== expect.kind ||
    cert.subject !== key.did ||
    cert.account !== expect.account ||
    cert.issuer !== expect.issuer
  )
    throw damaged(`its certificate is not this ${expect.kind}'s of account ${expect.account}`);
  return { key, cert };
}

/** This device's key and certificate for `account`, or `undefined` when it has none yet. */
export async function readDevice(
  paths: LocalStatePaths,
  account: string,
): Promise<CertifiedKey | undefined> {
  const path = join(paths.account, DEVICE_FILE);
  const bytes = await readPrivateFile(path);
  if (!bytes) return undefined;
  return decodeCertified(path, bytes, { kind: 'device', account, issuer: account });
}

/** A new device key, certified by the account's root. */
export async function certifyNewDevice(root: SigningKey, label: string): Promise<CertifiedKey> {
  const key = SigningKey.generate();
  const cert = await issueCertificate(root, {
    kind: 'device',
    subject: key.did,
    account: root.did,
    issued: Date.now(),
    ...(label ? { label: label.slice(0, 100) } : {}),
  });
  return { key, cert };
}

/**
 * Keeps this device's key; when another process kept one first, gives that one instead, so a
 * device has one key whoever made it.
 */
export async function keepDevice(
  paths: LocalStatePaths,
  device: CertifiedKey,
): Promise<CertifiedKey> {
  if (await createFileOnce(join(paths.account, DEVICE_FILE), encodeCertified(device)))
    return device;
  const kept = await readDevice(paths, device.cert.account);
  if (!kept) throw new CliError(EXIT.failed, 'the device key vanished while it was being made');
  return kept;
}

async function readKey(path: string, what: string): Promise<Uint8Array | undefined> {
  const bytes = await readPrivateFile(path);
  if (bytes && bytes.length !== 32) throw new CliError(EXIT.badData, `${what} ${path} is damaged`);
  return bytes;
}

/** A data folder's registry key as this device keeps it. */
export const readRegistryKey = (paths: LocalStatePaths) =>
  readKey(join(paths.account, REGISTRY_KEY_FILE), 'the registry key');

export async function keepRegistryKey(paths: LocalStatePaths, key: Uint8Array): Promise<void> {
  await createFileOnce(join(paths.account, REGISTRY_KEY_FILE), key);
}

/** A data folder's root key, kept on the device that made the account. */
export async function readLocalRoot(
  paths: LocalStatePaths,
  account: string,
): Promise<SigningKey | undefined> {
  const path = join(paths.account, ROOT_FILE);
  const secret = await readKey(path, 'the root key');
  if (!secret) return undefined;
  const root = SigningKey.fromSecret(secret);
  if (root.did !== account)
    throw new CliError(EXIT.badData, `the root key ${path} is not this account's`);
  return root;
}

export async function keepLocalRoot(paths: LocalStatePaths, root: SigningKey): Promise<void> {
  await createFileOnce(join(paths.account, ROOT_FILE), root.exportSecret());
}

const writerPath = (paths: LocalStatePaths, name: string) => {
  if (!WRITER_NAME.test(name)) throw new TypeError(`bad writer key name ${name}`);
  return join(paths.writerKeys, `${name}.key`);
};

/** The writer key `name` this device certified, if it has one. */
export async function readWriter(
  paths: LocalStatePaths,
  name: string,
  device: CertifiedKey,
): Promise<CertifiedKey | undefined> {
  const path = writerPath(paths, name);
  const bytes = await readPrivateFile(path);
  if (!bytes) return undefined;
  return decodeCertified(path, bytes, {
    kind: 'writer',
    account: device.cert.account,
    issuer: device.key.did,
  });
}

/**
 * The lasting writer key `name` of a node this device runs: read, or made, certified by the
 * device (for `spaces` only, when given) and kept before it is first used.
 */
export async function writerKey(
  paths: LocalStatePaths,
  name: string,
  device: CertifiedKey,
  options: { label?: string; spaces?: string[]; reader?: boolean } = {},
): Promise<CertifiedKey> {
  const known = await readWriter(paths, name, device);
  if (known) return known;
  const key = SigningKey.generate();
  const cert = await issueCertificate(device.key, {
    kind: 'writer',
    subject: key.did,
    account: device.cert.account,
    issued: Date.now(),
    ...(options.spaces ? { spaces: options.spaces } : {}),
    ...(options.reader ? { role: 'reader' as const } : {}),
    ...(options.label ? { label: options.label.slice(0, 100) } : {}),
  });
  if (await createFileOnce(writerPath(paths, name), encodeCertified({ key, cert })))
    return { key, cert };
  const kept = await readWriter(paths, name, device);
  if (!kept) throw new CliError(EXIT.failed, 'the writer key vanished while it was being made');
  return kept;
}

/** Forgets writer key `name` (after it was revoked). */
export async function removeWriter(paths: LocalStatePaths, name: string): Promise<void> {
  await rm(writerPath(paths, name), { force: true });
}
