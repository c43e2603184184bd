/**
 * `minca init`: an account in the home folder, or, with `--folder <dir>`, in a data folder that
 * then is the home: the registry and the spaces live in it, so it carries the whole account —
 * sealed under a registry key that only this device's state and the recovery file (under the
 * recovery passphrase) hold. `--pair` or `--passphrase` on a folder that holds an account
 * joins this device to it instead (`minca device join`).
 */
import { resolve } from 'node:path';
import { randomKey, type SigningKey } from '@minca/core';
import { type Account, createAccount } from '../account.js';
import { CliError, EXIT } from '../cli-error.js';
import { type Context, openAccountNode } from '../context.js';
import { DeviceBook } from '../device-book.js';
import { certifyNewDevice, keepDevice, keepLocalRoot, keepRegistryKey } from '../device-state.js';
import { defaultLabel, pathsOf } from '../identity.js';
import { table } from '../output.js';
import { checkNewPassphrase, MIN_PASSPHRASE, writeRecovery } from '../recovery.js';
import { askSecret } from '../secret-input.js';
import { deviceJoin } from './device.js';

export async function init(
  context: Context,
  options: { folder?: string; label?: string; pair?: boolean; passphrase?: boolean },
): Promise<void> {
  if (options.pair || options.passphrase) {
    if (!options.folder)
      throw new CliError(
        EXIT.usage,
        '--pair and --passphrase join a data folder: add --folder <dir>',
      );
    return deviceJoin(context, {
      folder: options.folder,
      ...(options.label ? { label: options.label } : {}),
      ...(options.passphrase ? { passphrase: true } : {}),
    });
  }
  const home = options.folder ? resolve(options.folder) : context.home;
  const here = { ...context, home };
  const label = options.label ?? (await defaultLabel());
  let prepare: ((account: Account, root: SigningKey) => Promise<void>) | undefined;
  if (options.folder) {
    const passphrase = await askSecret({
      env: context.env,
      variable: 'MINCA_PASSPHRASE',
      what: `a recovery passphrase for the folder (${MIN_PASSPHRASE} characters or more)`,
      confirm: true,
    });
    checkNewPassphrase(passphrase);
    // Everything secret is kept on this device, and in the recovery file under the passphrase,
    // before the account file says the folder holds an account.
    prepare = async (account, root) => {
      const paths = await pathsOf(account, context.env);
      const registryKey = randomKey();
      await writeRecovery(home, passphrase, { root, registryKey });
      await keepLocalRoot(paths, root);
      await keepRegistryKey(paths, registryKey);
      const device = await keepDevice(paths, await certifyNewDevice(root, label));
      await new DeviceBook(home, account.did, registryKey).put({
        did: device.key.did,
        label,
        added: device.cert.issued,
        certificate: device.cert.bytes,
      });
    };
  }
  const { account } = await createAccount(home, {
    folder: options.folder !== undefined,
    ...(prepare ? { prepare } : {}),
  });
  // Opening the node once makes this device's keys and lays out the stores.
  const opened = await openAccountNode(here);
  const device = opened.identity.device.key.did;
  const writer = opened.node.writer;
  await opened.close();
  const value = {
    did: account.did,
    account: account.id,
    device,
    writer,
    home,
    local: opened.local,
    folder: account.folder === true,
  };
  context.out.result(value, () => {
    const rows = [
      ['account', account.id],
      ['did', account.did],
      ['device', device],
      [account.folder ? 'data folder' : 'home', home],
      ['local state', opened.local],
    ];
    const lines = table(['', ''], rows).split('\n').slice(1);
    if (account.folder)
      lines.push(
        '',
        `use it with --home ${home} (or MINCA_HOME)`,
        'keep the recovery passphrase: with it, a copy of this folder opens on a new device',
      );
    return lines.join('\n');
  });
}
