/**
 * `minca status`: the account, and per space its fingerprint and how it stands with each peer.
 * While the daemon runs it shows what the daemon sees. Otherwise, with peers configured (or
 * given with --peer) it connects to them first, up to `--timeout`; `--offline` reports the
 * local state only. DIDs only: never a key.
 */
import { CliError } from '../cli-error.js';
import { type Context, withNode } from '../context.js';
import { readDaemonState } from '../daemon-state.js';
import { type Link, linkTo, waitForSync } from '../links.js';
import { table } from '../output.js';
import { peersOf, timeoutOf } from './sync.js';

interface SpaceReport {
  id: string;
  owner: string;
  fingerprint: string;
  versions: number;
  peers: Array<{ did: string; url?: string; synced: boolean; level: boolean }>;
}

export async function status(
  context: Context,
  options: { peer?: string[]; offline?: boolean; timeout?: string },
): Promise<void> {
  const given = options.peer ?? [];
  const report = await withNode(
    context,
    async ({ account, node, local }) => {
      const daemon = options.offline || given.length ? undefined : await readDaemonState(local);
      const peers = options.offline || daemon ? [] : peersOf(context, given);
      let problem: string | undefined;
      const links: Link[] = peers.map((url) => linkTo(node, url));
      try {
        if (links.length) {
          try {
            await waitForSync(node, links, { timeoutMs: timeoutOf(context, options.timeout) });
          } catch (error) {
            if (!(error instanceof CliError)) throw error;
            problem = error.message;
          }
        }
        const spaces: SpaceReport[] = [];
        for (const id of await node.spaces.list()) {
          const s = await node.spaces.status(id);
          const seen = daemon?.spaces.find((d) => d.id === id);
          spaces.push({
            id,
            owner: s.owner,
            fingerprint: seen?.fingerprint ?? s.fingerprint,
            versions: seen?.versions ?? s.versions,
            peers:
              seen?.peers ??
              s.peers.map((p) => {
                const url = links.find((l) => l.peer()?.did === p.did)?.url;
                return { ...p, ...(url ? { url } : {}) };
              }),
          });
        }
        return {
          account: { id: account.id, did: account.did, home: account.home, local },
          source: daemon
            ? `daemon (pid ${daemon.pid})`
            : links.length
              ? 'connected now'
              : 'offline',
          ...(daemon ? { daemonPeers: daemon.peers } : {}),
          spaces,
          ...(problem ? { problem } : {}),
        };
      } finally {
        for (const link of links) link.close();
      }
    },
    { writes: !options.offline },
  );
  context.out.result(report, () => {
    const lines = [
      `account ${report.account.did}`,
      `home    ${report.account.home}`,
      `peers   ${report.source}`,
      '',
    ];
    if (report.spaces.length === 0) lines.push('no spaces yet');
    else
      lines.push(
        table(
          ['space', 'fingerprint', 'versions', 'peer', 'synced', 'level'],
          report.spaces.flatMap((s) =>
            s.peers.length === 0
              ? [[s.id, s.fingerprint.slice(0, 16), s.versions, '-', '-', '-']]
              : s.peers.map((p) => [
                  s.id,
                  s.fingerprint.slice(0, 16),
                  s.versions,
                  p.url ?? p.did,
                  p.synced ? 'yes' : 'no',
                  p.level ? 'yes' : 'no',
                ]),
          ),
        ),
      );
    if (report.problem) lines.push('', report.problem);
    return lines.join('\n');
  });
}
