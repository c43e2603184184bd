/**
 * `minca device list|add|join|remove`: the devices of an account. Each device has a key of its
 * own, certified by the account's root; `add` pairs a new device through the data folder with
 * a one-time code, `join` is the new device's side (or uses the recovery passphrase), and
 * `remove` revokes a device, so nothing it signs from then on stands.
 */
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { issueCertificate, issueRevocation, SigningKey } from '@minca/core';
import { type Account, loadAccount } from '../account.js';
import { CliError, EXIT } from '../cli-error.js';
import { type Context, withNode } from '../context.js';
import { DeviceBook, type DeviceRecord } from '../device-book.js';
import {
  type CertifiedKey,
  certifyNewDevice,
  keepDevice,
  keepRegistryKey,
  readDevice,
  readRegistryKey,
} from '../device-state.js';
import {
  type DeviceIdentity,
  defaultLabel,
  nodeWriter,
  openIdentity,
  pathsOf,
  rootKey,
} from '../identity.js';
import { table } from '../output.js';
import {
  answer,
  awaitAnswer,
  awaitRequest,
  cleanUpPairing,
  newPairingCode,
  PAIRING_MS,
  pairingFor,
  sendRequest,
} from '../pairing.js';
import { openRecovery } from '../recovery.js';
import { askSecret } from '../secret-input.js';
import { writeFileAtomic } from '../secure-files.js';

interface DeviceRow {
  did: string;
  label?: string;
  added: number;
  removed?: number;
  /** This device. */
  here: boolean;
}

const bookOf = (identity: DeviceIdentity) =>
  new DeviceBook(identity.account.home, identity.account.did, identity.registryKey!);

async function devicesOf(identity: DeviceIdentity): Promise<DeviceRow[]> {
  const here = identity.device.key.did;
  const records: DeviceRecord[] = identity.account.folder ? await bookOf(identity).list() : [];
  if (!records.some((r) => r.did === here)) {
    const cert = identity.device.cert;
    records.push({
      did: here,
      ...(cert.label !== undefined ? { label: cert.label } : {}),
      added: cert.issued,
      certificate: cert.bytes,
    });
  }
  return records.map(({ did, label, added, removed }) => ({
    did,
    ...(label !== undefined ? { label } : {}),
    added,
    ...(removed !== undefined ? { removed } : {}),
    here: did === here,
  }));
}

const needsFolder = (account: Account, what: string) => {
  if (!account.folder) {
    throw new CliError(
      EXIT.usage,
      `${what} goes through a data folder, and this account lives in ${account.home}: ` +
        'make one with `minca init --folder <dir>`',
    );
  }
};

export async function deviceList(context: Context): Promise<void> {
  const identity = await openIdentity(await loadAccount(context.home), context.env);
  const writer = await nodeWriter(identity);
  const rows = await devicesOf(identity);
  context.out.result({ account: identity.account.did, writer: writer.key.did, devices: rows }, () =>
    table(
      ['device', 'label', 'added', 'status'],
      rows.map((r) => [
        r.did,
        r.label ?? '-',
        new Date(r.added).toISOString(),
        r.here
          ? 'this device'
          : r.removed !== undefined
            ? `removed ${new Date(r.removed).toISOString()}`
            : 'active',
      ]),
    ),
  );
}

function timeoutMs(text: string | undefined): number {
  if (text === undefined) return PAIRING_MS;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds * 1000 > PAIRING_MS) {
    throw new CliError(EXIT.usage, `--timeout is a number of seconds up to ${PAIRING_MS / 1000}`);
  }
  return seconds * 1000;
}

/**
 * Shows a pairing code once and waits for the new device. The code goes to the terminal, or to
 * `codeFile` (mode 0600) for scripts; never to stdout or a log.
 */
export async function deviceAdd(
  context: Context,
  options: { label?: string; codeFile?: string; timeout?: string },
): Promise<void> {
  const account = await loadAccount(context.home);
  needsFolder(account, 'adding a device');
  const identity = await openIdentity(account, context.env);
  const waitMs = timeoutMs(options.timeout);
  if (!options.codeFile && !process.stderr.isTTY) {
    throw new CliError(
      EXIT.usage,
      'no terminal to show the pairing code on: pass --code-file <path>',
    );
  }
  const root = await rootKey(identity, context.env, 'adding a device');
  const code = newPairingCode();
  const pairing = pairingFor(account.home, account.did, code);
  const deadline = Date.now() + waitMs;
  const codeFile = options.codeFile ? resolve(options.codeFile) : undefined;
  try {
    if (codeFile) await writeFileAtomic(codeFile, `${code}\n`, 0o600);
    else
      process.stderr.write(
        `Pairing code: ${code}\n` +
          `On the new device, with its copy of this folder, run: minca device join --folder <its path>\n` +
          `The code works once, for the next ${Math.round(waitMs / 60_000) || 1} minute(s). Waiting…\n`,
      );
    const request = await awaitRequest(pairing, deadline);
    const label = options.label ?? request.label;
    const certificate = await issueCertificate(root, {
      kind: 'device',
      subject: request.did,
      account: account.did,
      issued: Date.now(),
      ...(label ? { label: label.slice(0, 100) } : {}),
    });
    await answer(pairing, certificate, identity.registryKey!, deadline);
    await bookOf(identity).put({
      did: request.did,
      ...(label ? { label } : {}),
      added: certificate.issued,
      certificate: certificate.bytes,
    });
    context.out.result(
      { device: request.did, ...(label ? { label } : {}) },
      () => `added device ${request.did}${label ? ` (${label})` : ''}`,
    );
  } finally {
    await cleanUpPairing(pairing);
    if (codeFile) await rm(codeFile, { force: true });
  }
}

/**
 * This device joins the account in data folder `folder`: with a pairing code from one of its
 * devices (`minca device add` there), or with the recovery passphrase.
 */
export async function deviceJoin(
  context: Context,
  options: { folder: string; label?: string; passphrase?: boolean; timeout?: string },
): Promise<void> {
  const home = resolve(options.folder);
  const waitMs = timeoutMs(options.timeout);
  const account = await loadAccount(home);
  needsFolder(account, 'joining a device');
  const paths = await pathsOf(account, context.env);
  if ((await readDevice(paths, account.did)) && (await readRegistryKey(paths))) {
    throw new CliError(EXIT.usage, `this device already holds the account in ${home}`);
  }
  const label = options.label ?? (await defaultLabel());
  let device: CertifiedKey;
  let registryKey: Uint8Array;
  let root: SigningKey | undefined;
  if (options.passphrase) {
    const passphrase = await askSecret({
      env: context.env,
      variable: 'MINCA_PASSPHRASE',
      what: 'the recovery passphrase',
    });
    ({ root, registryKey } = await openRecovery(home, account.did, passphrase));
    device = await certifyNewDevice(root, label);
  } else {
    const code = await askSecret({
      env: context.env,
      variable: 'MINCA_PAIRING_CODE',
      what: 'the pairing code (from `minca device add` on one of your devices)',
    });
    const pairing = pairingFor(home, account.did, code);
    const key = SigningKey.generate();
    await sendRequest(pairing, key, label);
    if (!context.out.json) context.out.note('Waiting for your other device to answer…');
    const answered = await awaitAnswer(pairing, key, Date.now() + waitMs);
    device = { key, cert: answered.certificate };
    registryKey = answered.registryKey;
  }
  // The registry key first: a device key in the state means the device has joined.
  await keepRegistryKey(paths, registryKey);
  device = await keepDevice(paths, device);
  if (root) {
    await new DeviceBook(home, account.did, registryKey).put({
      did: device.key.did,
      label,
      added: device.cert.issued,
      certificate: device.cert.bytes,
    });
  }
  // Opening the node checks the registry opens, and lays out this device's stores.
  const here = { ...context, home };
  const spaces = await withNode(here, ({ node }) => node.spaces.list());
  const value = {
    account: account.id,
    did: account.did,
    device: device.key.did,
    home,
    local: paths.account,
    spaces: spaces.length,
  };
  context.out.result(value, () =>
    [
      `this device (${device.key.did}) now holds the account ${account.did}`,
      `use it with --home ${home} (or MINCA_HOME)`,
    ].join('\n'),
  );
}

/** Removes a device (its DID or label): the root revokes it in every space, from now on. */
export async function deviceRemove(context: Context, which: string): Promise<void> {
  const account = await loadAccount(context.home);
  const identity = await openIdentity(account, context.env);
  const rows = await devicesOf(identity);
  const matches = rows.filter((r) => r.did === which || r.label === which);
  if (matches.length === 0)
    throw new CliError(EXIT.notFound, `no device ${which}: see \`minca device list\``);
  if (matches.length > 1) {
    throw new CliError(
      EXIT.usage,
      `${matches.length} devices are labelled ${which}: name one by its DID (${matches.map((m) => m.did).join(', ')})`,
    );
  }
  const target = matches[0]!;
  if (target.here) {
    throw new CliError(EXIT.usage, 'this is the device you are on: remove it from another device');
  }
  if (target.removed !== undefined) {
    context.out.result(
      { device: target.did, removed: target.removed },
      () => `${target.did} was removed already`,
    );
    return;
  }
  const root = await rootKey(identity, context.env, 'removing a device');
  const revocation = await issueRevocation(root, target.did, Date.now());
  await withNode(context, ({ node }) => node.spaces.revoke(revocation.bytes), { writes: true });
  const record = await bookOf(identity).get(target.did);
  if (record)
    await bookOf(identity).put({ ...record, revocation: revocation.bytes, removed: revocation.at });
  context.out.result(
    { device: target.did, removed: revocation.at },
    () =>
      `removed ${target.did}${target.label ? ` (${target.label})` : ''}: nothing it signs from now on stands, and the spaces you own changed key`,
  );
}
