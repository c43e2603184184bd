/** `minca sync [url…]`: connect, sync every shared space until level, and stop. */

import { CliError, EXIT } from '../cli-error.js';
import { type Context, withNode } from '../context.js';
import { linkTo, SyncIncomplete, type SyncState, waitForSync } from '../links.js';
import { table } from '../output.js';

/** The peers to use: those given, else the configured ones (`--peer`, `MINCA_PEERS`, `peers`). */
export function peersOf(context: Context, given: string[]): string[] {
  const peers = context.settings.list({ flag: given, env: 'MINCA_PEERS', file: 'peers' });
  return peers;
}

export function timeoutOf(context: Context, flag: string | undefined): number {
  return (
    (context.settings.number({ flag, env: 'MINCA_TIMEOUT', file: 'timeout' }, '--timeout') ?? 60) *
    1000
  );
}

export function stateTable(states: SyncState[]): string {
  return table(
    ['space', 'peer', 'synced', 'level', 'refused'],
    states.map((s) => [
      s.space,
      s.url,
      s.synced ? 'yes' : 'no',
      s.level ? 'yes' : 'no',
      s.refused ?? '-',
    ]),
  );
}

export async function sync(
  context: Context,
  urls: string[],
  options: { timeout?: string },
): Promise<void> {
  const peers = peersOf(context, urls);
  if (peers.length === 0) {
    throw new CliError(EXIT.usage, 'no peer to sync with: give a URL, or set peers in the config');
  }
  const timeoutMs = timeoutOf(context, options.timeout);
  const print = (states: SyncState[]) =>
    context.out.result(states, () =>
      states.length === 0 ? 'connected; no space here names these peers' : stateTable(states),
    );
  let states: SyncState[];
  try {
    states = await withNode(
      context,
      async ({ node }) => {
        const links = peers.map((url) => linkTo(node, url));
        try {
          return await waitForSync(node, links, { timeoutMs });
        } finally {
          for (const link of links) link.close();
        }
      },
      { writes: true },
    );
  } catch (error) {
    // What did sync is shown, and the command still fails for what did not.
    if (error instanceof SyncIncomplete && error.states.length > 0) print(error.states);
    throw error;
  }
  print(states);
}
