/**
 * What every command starts from: its settings (flags, env, config file), its output, and, for
 * those that need one, the account's node over this device's stores.
 */
import { join } from 'node:path';
import { createNode, type MincaNode } from '@minca/core';
import { directoryStores } from '@minca/folder';
import { type Account, loadAccount, localStateDir } from './account.js';
import { markChanged } from './changes.js';
import { readConfigFile, resolveHome, Settings } from './config.js';
import { createOutput, type Output } from './output.js';

/** Options every command takes. */
export interface GlobalOptions {
  home?: string;
  config?: string;
  json?: boolean;
}

export interface Context {
  home: string;
  settings: Settings;
  out: Output;
  env: NodeJS.ProcessEnv;
}

export function createContext(options: GlobalOptions, env: NodeJS.ProcessEnv): Context {
  const home = resolveHome(options.home, env);
  const settings = new Settings(env, readConfigFile(options.config, env, home));
  const json = settings.boolean({
    flag: options.json || undefined,
    env: 'MINCA_JSON',
    file: 'json',
  });
  return { home, settings, out: createOutput(json), env };
}

/** An account's node, open; `close()` closes it and its stores. */
export interface AccountNode {
  account: Account;
  node: MincaNode;
  /** This device's local state for the account. */
  local: string;
  close(): Promise<void>;
}

/** Opens the account's node over this device's stores (`<local state>/stores`). */
export async function openAccountNode(context: Context): Promise<AccountNode> {
  const { account, key } = await loadAccount(context.home);
  const local = localStateDir(context.home, account.id, context.env);
  const stores = directoryStores(join(local, 'stores'));
  const node = await createNode({ stores, key });
  return {
    account,
    node,
    local,
    async close() {
      await node.close();
      await stores.close?.();
    },
  };
}

/**
 * Runs `use` with the account's node, closing it after, however `use` ends. With `writes`, a
 * running daemon is told to reload the stores.
 */
export async function withNode<T>(
  context: Context,
  use: (an: AccountNode) => Promise<T>,
  options: { writes?: boolean } = {},
): Promise<T> {
  const opened = await openAccountNode(context);
  try {
    return await use(opened);
  } finally {
    await opened.close();
    if (options.writes) await markChanged(opened.local);
  }
}
