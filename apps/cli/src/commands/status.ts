/**
 * `minca status`: the account, and per space its fingerprint and how it stands with each peer.
 * While the daemon runs it shows what the daemon sees. Otherwise, with peers configured (or
 * given with --peer) it connects to them first, up to `--timeout`; `--offline` reports the
 * local state only. DIDs only: never a key.
 */
import { DEFAULT_FILE_LIMITS } from '@minca/core';
import { CliError } from '../cli-error.js';
import { type Context, withNode } from '../context.js';
import { readDaemonState } from '../daemon-state.js';
import { type Link, linkTo, waitForSync } from '../links.js';
import { formatBytes, table } from '../output.js';
import { peersOf, timeoutOf } from './sync.js';

interface SpaceReport {
  id: string;
  owner: string;
  fingerprint: string;
  versions: number;
  /** Files held whole here, of those its records name, and this device's limits (bytes). */
  files: { held: number; named: number; ahead: number; keep: number };
  /** Each mirror: its segments, last pull and push, last error. */
  mirrors: Array<{
    index: number;
    segments: number;
    pulledAt?: number;
    pushedAt?: number;
    error?: string;
  }>;
  peers: Array<{ did: string; url?: string; synced: boolean; level: boolean }>;
  /** Invites of the space accepted by more than one account. */
  reusedInvites: number;
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
          const named = new Set(await node.files.named(id));
          const held = (await node.files.whole(id)).filter((f) => named.has(f)).length;
          const { ahead, keep } = DEFAULT_FILE_LIMITS;
          spaces.push({
            id,
            owner: s.owner,
            fingerprint: seen?.fingerprint ?? s.fingerprint,
            versions: seen?.versions ?? s.versions,
            files: { held, named: named.size, ahead, keep },
            mirrors: s.mirrors.map(({ index, segments, pulledAt, pushedAt, error }) => ({
              index,
              segments,
              ...(pulledAt ? { pulledAt } : {}),
              ...(pushedAt ? { pushedAt } : {}),
              ...(error ? { error } : {}),
            })),
            reusedInvites: s.reusedInvites.length,
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
          ['space', 'fingerprint', 'versions', 'files', 'mirrors', 'peer', 'synced', 'level'],
          report.spaces.flatMap((s) => {
            const files = `${s.files.held}/${s.files.named}`;
            const mirrors =
              s.mirrors.length === 0
                ? '-'
                : s.mirrors
                    .map((m) => (m.error ? `#${m.index} failing` : `#${m.index} ok`))
                    .join(' ');
            return s.peers.length === 0
              ? [[s.id, s.fingerprint.slice(0, 16), s.versions, files, mirrors, '-', '-', '-']]
              : s.peers.map((p) => [
                  s.id,
                  s.fingerprint.slice(0, 16),
                  s.versions,
                  files,
                  mirrors,
                  p.url ?? p.did,
                  p.synced ? 'yes' : 'no',
                  p.level ? 'yes' : 'no',
                ]);
          }),
        ),
        '',
        `files held/named; this device fetches ahead up to ${formatBytes(DEFAULT_FILE_LIMITS.ahead)} and keeps ${formatBytes(DEFAULT_FILE_LIMITS.keep)} per space`,
      );
    for (const s of report.spaces.filter((s) => s.reusedInvites > 0))
      lines.push(
        '',
        `space ${s.id}: ${s.reusedInvites} invite(s) used by more than one account: see \`minca space status ${s.id}\``,
      );
    if (report.problem) lines.push('', report.problem);
    return lines.join('\n');
  });
}
