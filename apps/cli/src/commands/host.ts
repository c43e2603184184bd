/**
 * `minca host` and `minca carrier`: a server node over WebSocket, its stores in SQLite. A host
 * holds spaces per subscription (spec 06); a carrier relays and keeps every file, with no
 * subscriptions. Both run until SIGINT or SIGTERM.
 */
import { join } from 'node:path';
import { CliError, EXIT } from '../cli-error.js';
import { parseBytes } from '../config.js';
import type { Context } from '../context.js';
import { lowFileLimitNote } from '../host/file-limit.js';
import { openHostNode, openHostStores } from '../host/host-node.js';
import { type S3Flags, s3Mirror } from '../host/s3-mirror.js';
import { serveNode } from '../host/serve.js';
import { formatBytes, table } from '../output.js';

export interface ServeOptions extends S3Flags {
  port?: string;
  bind?: string;
  data?: string;
}

function dataDir(context: Context, flag: string | undefined, kind: 'host' | 'carrier'): string {
  return (
    context.settings.string({
      flag,
      env: `MINCA_${kind.toUpperCase()}_DATA`,
      file: `${kind}.data`,
    }) ?? join(context.home, kind)
  );
}

/** Runs a host or carrier until a signal; resolves when it has stopped. */
export async function serve(
  context: Context,
  kind: 'host' | 'carrier',
  options: ServeOptions,
): Promise<void> {
  const { settings } = context;
  const port =
    settings.number({ flag: options.port, env: 'MINCA_PORT', file: `${kind}.port` }, '--port') ??
    4455;
  if (!Number.isInteger(port) || port > 65535)
    throw new CliError(EXIT.usage, `--port ${port} is not a port`);
  const bind =
    settings.string({ flag: options.bind, env: 'MINCA_BIND', file: `${kind}.bind` }) ?? '127.0.0.1';
  const data = dataDir(context, options.data, kind);
  const mirror = s3Mirror(settings, kind, options);
  const host = await openHostNode(data, {
    holding: kind === 'host' ? 'subscriptions' : 'all',
    ...(mirror ? { mirror } : {}),
    // Never the signed URL or a key: the error's own message, which the blob store keeps clean.
    onMirrorError: (error) => context.out.note(`mirror: ${(error as Error).message ?? error}`),
  });
  let served: Awaited<ReturnType<typeof serveNode>>;
  try {
    served = await serveNode(host.node, {
      bind,
      port,
      onError: (error) => context.out.note(`accepting a connection failed: ${error.message}`),
    });
  } catch (cause) {
    await host.close();
    const why =
      (cause as NodeJS.ErrnoException).code === 'EADDRINUSE'
        ? `port ${port} is in use: pick another with --port`
        : (cause as Error).message;
    throw new CliError(EXIT.unavailable, `cannot listen on ${bind}:${port}: ${why}`, { cause });
  }
  context.out.result(
    { kind, url: served.url, did: host.node.did, data: host.data, mirror: mirror !== undefined },
    () =>
      [
        `minca ${kind} listening on ${served.url}`,
        `did    ${host.node.did}`,
        `data   ${host.data}`,
        `mirror ${mirror ? 'S3 bucket' : 'none'}`,
      ].join('\n'),
  );
  const low = lowFileLimitNote();
  if (low) context.out.note(low);
  const gateNotes = noteClosedConnections(context, served);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      clearInterval(gateNotes);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await served.close();
  await host.close();
  if (!context.out.json) context.out.note(`minca ${kind} stopped`);
}

/** Once a minute at most: how many connections were closed before their handshake, and why. */
function noteClosedConnections(
  context: Context,
  served: Awaited<ReturnType<typeof serveNode>>,
): NodeJS.Timeout {
  let told = { timedOut: 0, shed: 0 };
  const timer = setInterval(() => {
    const { timedOut, shed } = served.gate();
    if (timedOut === told.timedOut && shed === told.shed) return;
    const { handshakeMs, maxPending, maxPendingPerAddress } = served.limits;
    context.out.note(
      `closed ${timedOut - told.timedOut} connections not through their handshake in ${handshakeMs / 1000} s and ` +
        `${shed - told.shed} over the cap of ${maxPending} waiting (${maxPendingPerAddress} per address)`,
    );
    told = { timedOut, shed };
  }, 60_000);
  timer.unref();
  return timer;
}

export interface SubscriptionOptions {
  data?: string;
  spaces?: string;
  bytes?: string;
  expires?: string;
}

function parseExpiry(text: string | undefined): number | undefined {
  if (text === undefined || text === 'never') return undefined;
  const days = /^(\d+)d$/.exec(text);
  if (days) return Date.now() + Number(days[1]) * 86_400_000;
  const at = Date.parse(text);
  if (Number.isNaN(at))
    throw new CliError(
      EXIT.usage,
      `--expires takes a date (2027-01-31), a number of days (30d) or never, not ${text}`,
    );
  return at;
}

const describe = (s: {
  id: string;
  account: string;
  spaces: number;
  bytes: number;
  expires?: number;
}) => [
  s.id,
  s.account,
  s.spaces,
  formatBytes(s.bytes),
  s.expires === undefined ? 'never' : new Date(s.expires).toISOString(),
];

export async function subscriptionAdd(
  context: Context,
  account: string,
  options: SubscriptionOptions,
): Promise<void> {
  const spaces = Number(options.spaces ?? 10);
  if (!Number.isInteger(spaces) || spaces < 0)
    throw new CliError(EXIT.usage, `--spaces is a whole number, not ${options.spaces}`);
  const bytes = parseBytes(options.bytes ?? '1GiB', '--bytes');
  const expires = parseExpiry(options.expires);
  const { db, subscriptions, stores } = await openHostStores(
    dataDir(context, options.data, 'host'),
  );
  try {
    const sub = await subscriptions.add({
      account,
      spaces,
      bytes,
      ...(expires === undefined ? {} : { expires }),
    });
    context.out.result(sub, () => sub.id);
  } finally {
    await stores.close?.();
    db.close();
  }
}

export async function subscriptionList(
  context: Context,
  options: SubscriptionOptions,
): Promise<void> {
  const { db, subscriptions, stores } = await openHostStores(
    dataDir(context, options.data, 'host'),
  );
  try {
    const subs = await subscriptions.list();
    context.out.result(subs, () =>
      subs.length === 0
        ? 'no subscriptions: `minca host subscription add <account DID>`'
        : table(['id', 'account', 'spaces', 'bytes', 'expires'], subs.map(describe)),
    );
  } finally {
    await stores.close?.();
    db.close();
  }
}

export async function subscriptionRemove(
  context: Context,
  id: string,
  options: SubscriptionOptions,
): Promise<void> {
  const { db, subscriptions, stores } = await openHostStores(
    dataDir(context, options.data, 'host'),
  );
  try {
    if (!(await subscriptions.remove(id)))
      throw new CliError(
        EXIT.notFound,
        `no subscription ${id}: see \`minca host subscription list\``,
      );
    context.out.result({ removed: id }, () => `removed ${id}`);
  } finally {
    await stores.close?.();
    db.close();
  }
}

/** `minca host status`: the spaces a host holds, for which account, and what they take. */
export async function hostStatus(context: Context, options: { data?: string }): Promise<void> {
  const host = await openHostNode(dataDir(context, options.data, 'host'), { holding: 'all' });
  try {
    const held = (await host.node.spaces.held()).map((s) => ({
      id: s.id,
      account: s.offeredBy,
      versions: s.versions,
      bytes: s.bytes,
      added: s.added,
    }));
    context.out.result(held, () =>
      held.length === 0
        ? 'holds no space yet'
        : table(
            ['space', 'account', 'versions', 'bytes'],
            held.map((s) => [s.id, s.account, s.versions, formatBytes(s.bytes)]),
          ),
    );
  } finally {
    await host.close();
  }
}
