/**
 * `minca status`: the account, and per space its fingerprint and how it stands with each peer.
 * With peers configured (or given) it connects to them first, up to `--timeout`; with
 * `--offline` it reports the local state only.
 */
import { CliError } from '../cli-error.js';
import { type Context, withNode } from '../context.js';
import { type Link, linkTo, waitForSync } from '../links.js';
import { table } from '../output.js';
import { peersOf, timeoutOf } from './sync.js';

export async function status(
  context: Context,
  options: { peer?: string[]; offline?: boolean; timeout?: string },
): Promise<void> {
  const peers = options.offline ? [] : peersOf(context, options.peer ?? []);
  const report = await withNode(context, async ({ account, node, local }) => {
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
      const spaces = [];
      for (const id of await node.spaces.list()) {
        const s = await node.spaces.status(id);
        spaces.push({
          id,
          owner: s.owner,
          fingerprint: s.fingerprint,
          versions: s.versions,
          peers: s.peers.map((p) => ({
            did: p.did,
            url: links.find((l) => l.peer()?.did === p.did)?.url,
            synced: p.synced,
            level: p.level,
          })),
        });
      }
      return {
        account: { id: account.id, did: account.did, home: account.home, local },
        spaces,
        problem,
      };
    } finally {
      for (const link of links) link.close();
    }
  });
  context.out.result(report, () => {
    const lines = [`account ${report.account.did}`, `home    ${report.account.home}`, ''];
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
