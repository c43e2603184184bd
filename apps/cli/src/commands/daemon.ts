/**
 * `minca daemon`: stays up, syncing every space of the account with its peers (and mirrors).
 * Commands write the same stores; when one has (`<local>/changed`, checked every 2 s), the
 * daemon reads them again (`reconcileFolder` for a data folder, the directory stores' reload
 * and `node.invalidate` otherwise), so peers hear of the new records. A space new to the
 * account restarts the node, so every peer is offered it.
 */
import { lastChanged } from '../changes.js';
import { CliError, EXIT } from '../cli-error.js';
import { type AccountNode, type Context, openAccountNode } from '../context.js';
import { claimDaemon, type DaemonState, writeDaemonState } from '../daemon-state.js';
import { type Served, serveNode } from '../host/serve.js';
import { type Link, linkTo } from '../links.js';
import { peersOf } from './sync.js';

export const RELOAD_MS = 2_000;

interface Running {
  opened: AccountNode;
  links: Link[];
  served?: Served;
}

interface Listen {
  bind: string;
  port: number;
}

async function start(context: Context, peers: string[], listen?: Listen): Promise<Running> {
  const opened = await openAccountNode(context, { serving: true });
  // The owner hears at once of an invite used by a second account (a forwarded code).
  opened.node.spaces.onReusedInvite((reuse) =>
    context.out.note(
      `invite ${reuse.invite} of space ${reuse.space} was accepted by ${reuse.accounts.length} ` +
        `accounts (${reuse.accounts.join(', ')}): each keeps its role; see \`minca space status ${reuse.space}\``,
    ),
  );
  // Open every space first, so each is offered to the peers from the start.
  for (const id of await opened.node.spaces.list()) await opened.node.spaces.open(id);
  const links = peers.map((url) => linkTo(opened.node, url));
  if (!listen) return { opened, links };
  try {
    return { opened, links, served: await serveNode(opened.node, listen) };
  } catch (cause) {
    for (const link of links) link.close();
    await opened.close();
    throw new CliError(
      EXIT.unavailable,
      `cannot listen on ${listen.bind}:${listen.port}: ${(cause as Error).message}`,
      { cause },
    );
  }
}

async function stop(running: Running): Promise<void> {
  for (const link of running.links) link.close();
  await running.served?.close();
  await running.opened.close();
}

async function state(running: Running): Promise<DaemonState> {
  const { node } = running.opened;
  const spaces: DaemonState['spaces'] = [];
  for (const id of await node.spaces.list()) {
    const s = await node.spaces.status(id);
    spaces.push({
      id,
      fingerprint: s.fingerprint,
      versions: s.versions,
      peers: s.peers.map((p) => {
        const url = running.links.find((l) => l.peer()?.did === p.did)?.url;
        return { ...p, ...(url ? { url } : {}) };
      }),
    });
  }
  return {
    pid: process.pid,
    updated: Date.now(),
    peers: running.links.map((l) => {
      const did = l.peer()?.did;
      const error = l.lastError();
      return {
        url: l.url,
        connected: did !== undefined,
        ...(did ? { did } : {}),
        ...(error && !did ? { error } : {}),
      };
    }),
    spaces,
  };
}

export async function daemon(
  context: Context,
  options: { peer?: string[]; listen?: string; bind?: string },
): Promise<void> {
  const peers = peersOf(context, options.peer ?? []);
  const port = context.settings.number(
    { flag: options.listen, env: 'MINCA_LISTEN', file: 'daemon.listen' },
    '--listen',
  );
  const bind =
    context.settings.string({ flag: options.bind, env: 'MINCA_BIND', file: 'daemon.bind' }) ??
    '127.0.0.1';
  let listen = port === undefined ? undefined : { bind, port };
  let running = await start(context, peers, listen);
  // After a reload, listen on the same port again.
  if (listen && running.served) listen = { bind, port: running.served.port };
  const { local } = running.opened;
  let release: () => Promise<void>;
  try {
    release = await claimDaemon(local);
  } catch (error) {
    await stop(running);
    throw error;
  }
  let seen = await lastChanged(local);
  const spaces = await running.opened.node.spaces.list();
  const url = running.served?.url;
  context.out.result(
    {
      daemon: process.pid,
      did: running.opened.account.did,
      peers,
      spaces: spaces.length,
      ...(url ? { url } : {}),
    },
    () =>
      `minca daemon (pid ${process.pid}) syncing ${spaces.length} space(s) with ${peers.length ? peers.join(', ') : 'no peers (set peers in the config, or --peer)'}${url ? `, listening on ${url}` : ''}`,
  );
  let busy: Promise<void> = Promise.resolve();
  let failure: unknown;
  const tick = async () => {
    const changed = await lastChanged(local);
    if (changed > seen) {
      seen = changed;
      await running.opened.reload();
      // A space a command created or joined is offered to the peers, who reconnect for it.
      const known = new Set(spaces);
      const now = await running.opened.node.spaces.list();
      if (now.some((id) => !known.has(id))) {
        spaces.splice(0, spaces.length, ...now);
        await stop(running);
        running = await start(context, peers, listen);
      }
    }
    await writeDaemonState(local, await state(running));
  };
  const timer = setInterval(() => {
    busy = busy.then(tick).catch((error) => {
      failure = error;
      process.kill(process.pid, 'SIGTERM');
    });
  }, RELOAD_MS);
  busy = busy.then(async () => writeDaemonState(local, await state(running))).catch(() => {});
  await new Promise<void>((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
  clearInterval(timer);
  await busy;
  await stop(running);
  await release();
  if (failure)
    throw new CliError(EXIT.failed, `the daemon stopped: ${(failure as Error).message}`, {
      cause: failure,
    });
  if (!context.out.json) context.out.note('minca daemon stopped');
}
