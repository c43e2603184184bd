/**
 * What every command starts from: its settings (flags, env, config file), its output, and, for
 * those that need one, the account's node over this device's stores.
 */
import { createNode, isMincaError, type MincaNode } from '@minca/core';
import {
  type DirectoryStorageAdapter,
  type DirectoryStoreFactory,
  directoryStores,
  folderStores,
  reconcileFolder,
} from '@minca/folder';
import { type Account, loadAccount } from './account.js';
import { openSlotNode, syncInProcess } from './agent-slot.js';
import { markChanged } from './changes.js';
import { CliError, EXIT } from './cli-error.js';
import { readConfigFile, resolveHome, Settings } from './config.js';
import { chainOf, type DeviceIdentity, nodeWriter, openIdentity } from './identity.js';
import { createOutput, type Output } from './output.js';
import { PLATFORM_CRYPTO, SERVING_CRYPTO } from './platform.js';

/** Options every command takes. */
export interface GlobalOptions {
  home?: string;
  config?: string;
  json?: boolean;
  agent?: string;
}

export interface Context {
  home: string;
  settings: Settings;
  out: Output;
  env: NodeJS.ProcessEnv;
  /** The agent slot commands run as (`--agent`, `MINCA_AGENT`), if any. */
  agent?: string;
}

export function createContext(options: GlobalOptions, env: NodeJS.ProcessEnv): Context {
  const home = resolveHome(options.home, env);
  const settings = new Settings(env, readConfigFile(options.config, env, home));
  const json = settings.boolean({
    flag: options.json || undefined,
    env: 'MINCA_JSON',
    file: 'json',
  });
  const agent = options.agent ?? (env.MINCA_AGENT || undefined);
  return { home, settings, out: createOutput(json), env, ...(agent ? { agent } : {}) };
}

/** An account's node, open; `close()` closes it and its stores. */
export interface AccountNode {
  account: Account;
  /** This device's keys for the account. */
  identity: DeviceIdentity;
  node: MincaNode;
  /** This device's local state for the account. */
  local: string;
  /**
   * Reads again what another process (a command, beside the daemon) wrote to the stores, and
   * has the node take it in. Gives the ids of the spaces that changed.
   */
  reload(): Promise<string[]>;
  close(): Promise<void>;
}

const SPACE_STORE = /^spaces\/([^/]+)$/;

/** Directory stores that remember what they opened, so all of it can be read again. */
function reloadable(factory: DirectoryStoreFactory) {
  const opened = new Map<string, DirectoryStorageAdapter>();
  const stores: DirectoryStoreFactory = {
    ...factory,
    async open(path) {
      const adapter = await factory.open(path);
      opened.set(path, adapter);
      return adapter;
    },
  };
  const reload = async (): Promise<string[]> => {
    const changed: string[] = [];
    for (const [path, adapter] of opened) {
      // A store the node closed since is read afresh when it opens again.
      const reloaded = await adapter.reload().catch((error) => {
        if (isMincaError(error, 'closed')) return false;
        throw error;
      });
      if (reloaded) changed.push(path);
    }
    return changed;
  };
  return { stores, reload };
}

/**
 * Opens the account's node, signing with this device's writer key for it. Its stores are this
 * device's (`<local state>/stores`); for an account in a data folder, the registry (sealed under
 * the registry key this device keeps) and the spaces' segments are in the folder too. `serving`
 * (the daemon) checks versions coming in, and opens bodies, on worker threads.
 */
export async function openAccountNode(
  context: Context,
  options: { serving?: boolean } = {},
): Promise<AccountNode> {
  if (context.agent) return openAsAgent(context, context.agent);
  const account = await loadAccount(context.home);
  const identity = await openIdentity(account, context.env);
  const writer = await nodeWriter(identity);
  const signing = {
    key: writer.key,
    certificates: chainOf(identity, writer),
    crypto: options.serving ? SERVING_CRYPTO : PLATFORM_CRYPTO,
    // A segment in the folder that does not hold (damaged, or written by someone without the
    // keys) is skipped; the person is told, since someone may be tampering with the folder.
    onMirrorError: (error: Error) => context.out.note(`data folder: ${error.message}`),
  };
  const paths = identity.paths;
  const local = reloadable(directoryStores(paths.stores));
  let close: () => Promise<void>;
  let node: MincaNode;
  let reload: () => Promise<string[]>;
  if (account.folder) {
    const stores = folderStores(context.home, {
      localKey: identity.registryKey!,
      local: local.stores,
    });
    try {
      node = await createNode({ stores, ...signing });
    } catch (error) {
      await stores.close();
      await local.stores.close?.();
      throw error;
    }
    reload = () => reconcileFolder(node, stores);
    close = async () => {
      await node.close();
      await stores.close();
      await local.stores.close?.();
    };
  } else {
    node = await createNode({ stores: local.stores, ...signing });
    reload = async () => {
      const spaces = (await local.reload()).flatMap((path) => SPACE_STORE.exec(path)?.[1] ?? []);
      await node.invalidate(spaces);
      return spaces;
    };
    close = async () => {
      await node.close();
      await local.stores.close?.();
    };
  }
  return { account, identity, node, local: paths.account, reload, close };
}

/**
 * The node of agent slot `slot`, signing as its own key. Closing it first syncs the slot with
 * the account's stores, in this process, so what the agent wrote reaches the account.
 */
async function openAsAgent(context: Context, slot: string): Promise<AccountNode> {
  const { agent: _agent, ...asAccount } = context;
  const account = await openAccountNode(asAccount);
  try {
    const agent = await openSlotNode(account.identity, slot);
    if ((await syncInProcess(account.node, agent.node)) !== account.node.did) {
      await agent.close();
      throw new CliError(
        EXIT.refused,
        `agent slot ${slot} was ended: its key is revoked, and nothing it writes stands`,
      );
    }
    return {
      ...account,
      node: agent.node,
      reload: async () => [],
      async close() {
        try {
          await syncInProcess(account.node, agent.node);
        } finally {
          await agent.close();
          await account.close();
        }
      },
    };
  } catch (error) {
    await account.close();
    throw error;
  }
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
