/**
 * `minca host` and `minca carrier`: a server node over WebSocket, its stores in SQLite. A host
 * holds spaces per subscription (spec 06); a carrier relays and keeps every file, with no
 * subscriptions. Both run until SIGINT or SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError, EXIT } from '../cli-error.js';
import { parseBytes } from '../config.js';
import type { Context } from '../context.js';
import { lowFileLimitNote } from '../host/file-limit.js';
import { FLEET_REFRESH_MS, Fleet } from '../host/fleet.js';
import {
  FLEET_CERT_FILE,
  fleetCertificate,
  joinFleet,
  newFleetKey,
  readKeyFile,
} from '../host/fleet-identity.js';
import { FleetPeering } from '../host/fleet-peering.js';
import { hostKey, openHostNode, openHostStores } from '../host/host-node.js';
import { type S3Flags, s3Mirror } from '../host/s3-mirror.js';
import { serveNode } from '../host/serve.js';
import { formatBytes, table } from '../output.js';

export interface ServeOptions extends S3Flags {
  port?: string;
  bind?: string;
  data?: string;
  /** The URL the other hosts of a fleet reach this one at; by default the one it listens on. */
  advertise?: string;
  /** Bytes of file chunks kept on disk before files the bucket holds leave it. */
  chunkBudget?: string;
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
  const budget = settings.string({
    flag: options.chunkBudget,
    env: 'MINCA_CHUNK_BUDGET',
    file: `${kind}.chunkBudget`,
  });
  const host = await openHostNode(data, {
    holding: kind === 'host' ? 'subscriptions' : 'all',
    ...(mirror ? { mirror } : {}),
    ...(budget ? { chunkBudget: parseBytes(budget, '--chunk-budget') } : {}),
    // Never the signed URL or a key: the error's own message, which the blob store keeps clean.
    onMirrorError: (error) => context.out.note(`mirror: ${(error as Error).message ?? error}`),
    onFleetError: (error) => context.out.note(`fleet: ${(error as Error).message ?? error}`),
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
  const fleet = host.fleet;
  context.out.result(
    {
      kind,
      url: served.url,
      did: host.node.did,
      data: host.data,
      mirror: mirror !== undefined,
      ...(fleet ? { fleet: fleet.account, host: host.node.writer } : {}),
    },
    () =>
      [
        `minca ${kind} listening on ${served.url}`,
        `did    ${host.node.did}`,
        ...(fleet ? [`host   ${host.node.writer} (a host of the fleet ${fleet.account})`] : []),
        `data   ${host.data}`,
        `mirror ${mirror ? 'S3 bucket' : 'none'}`,
      ].join('\n'),
  );
  const advertise = settings.string({
    flag: options.advertise,
    env: 'MINCA_ADVERTISE',
    file: `${kind}.advertise`,
  });
  const fleetLoop = fleet
    ? await runFleet(context, host, fleet, advertise ? checkAdvertised(advertise) : served.url)
    : undefined;
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
  await fleetLoop?.stop();
  await served.close();
  await host.close();
  if (!context.out.json) context.out.note(`minca ${kind} stopped`);
}

function checkAdvertised(url: string): string {
  if (!/^wss?:\/\/[^\s,]+$/.test(url))
    throw new CliError(EXIT.usage, `--advertise ${url}: give the ws:// URL the other hosts reach`);
  return url;
}

/**
 * A fleet host's work beside serving (spec 06 §6): every few seconds it reads the fleet's
 * records, renews its own, reports what it holds, and keeps its connections to the others.
 */
async function runFleet(
  context: Context,
  host: Awaited<ReturnType<typeof openHostNode>>,
  fleet: Fleet,
  url: string,
): Promise<{ stop(): Promise<void> }> {
  const peering = new FleetPeering(host.node, host.node.writer);
  const note = (error: unknown) => context.out.note(`fleet: ${(error as Error).message ?? error}`);
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const round = async () => {
    await fleet.announce(url).catch(note);
    await fleet.refresh().catch(note);
    if (host.policy) await fleet.reportUsage(host.policy.usage()).catch(note);
    if (!stopped) peering.update(fleet.hosts());
  };
  await round();
  const timer = setInterval(() => {
    running = running.then(round);
  }, FLEET_REFRESH_MS);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      peering.close();
      await fleet.withdraw().catch(note);
    },
  };
}

/** `minca host fleet new <file>`: a fleet key, kept by the operator, never on a host. */
export async function fleetNew(context: Context, file: string): Promise<void> {
  const key = await newFleetKey(file);
  context.out.result({ fleet: key.did, key: file }, () =>
    [
      `fleet  ${key.did}`,
      `key    ${file} (keep it off the hosts; \`minca host fleet join ${file} --data <dir>\` certifies one)`,
    ].join('\n'),
  );
}

/** `minca host fleet join <fleet key> --data <dir>`: certifies this host for the fleet. */
export async function fleetJoin(
  context: Context,
  file: string,
  options: { data?: string },
): Promise<void> {
  const fleet = await readKeyFile(file, 'the fleet key');
  const data = dataDir(context, options.data, 'host');
  await mkdir(data, { recursive: true, mode: 0o700 });
  const key = await hostKey(data);
  await joinFleet(data, fleet, key);
  context.out.result(
    { fleet: fleet.did, host: key.did, data },
    () => `${key.did} is a host of the fleet ${fleet.did}; start it with the fleet's bucket`,
  );
}

/** The fleet's shared state, when the host data folder is a fleet host's; for subscriptions. */
async function fleetOf(context: Context, options: SubscriptionOptions): Promise<Fleet | undefined> {
  const data = dataDir(context, options.data, 'host');
  if (!existsSync(join(data, FLEET_CERT_FILE))) return undefined;
  const key = await hostKey(data);
  const certified = await fleetCertificate(data, key);
  if (!certified) return undefined;
  const bucket = s3Mirror(context.settings, 'host', options);
  if (!bucket)
    throw new CliError(EXIT.usage, 'a fleet keeps its subscriptions in its bucket: configure it');
  const fleet = new Fleet(bucket, { key, chain: certified.chain, fleet: certified.fleet });
  await fleet.refresh();
  return fleet;
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

export interface SubscriptionOptions extends S3Flags {
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

function checkAccount(account: string): string {
  if (!/^did:key:z[1-9A-HJ-NP-Za-km-z]+$/.test(account))
    throw new CliError(EXIT.usage, `${account} is not an account DID (did:key:z…)`);
  return account;
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
  const fleet = await fleetOf(context, options);
  if (fleet) {
    const sub = {
      id: randomBytes(8).toString('hex'),
      account: checkAccount(account),
      spaces,
      bytes,
      ...(expires === undefined ? {} : { expires }),
      created: Date.now(),
    };
    await fleet.addSubscription(sub);
    context.out.result(sub, () => sub.id);
    return;
  }
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
  const fleet = await fleetOf(context, options);
  const local = fleet ? undefined : await openHostStores(dataDir(context, options.data, 'host'));
  try {
    const subs = fleet ? fleet.subscriptions() : await local!.subscriptions.list();
    context.out.result(subs, () =>
      subs.length === 0
        ? 'no subscriptions: `minca host subscription add <account DID>`'
        : table(['id', 'account', 'spaces', 'bytes', 'expires'], subs.map(describe)),
    );
  } finally {
    await local?.stores.close?.();
    local?.db.close();
  }
}

export async function subscriptionRemove(
  context: Context,
  id: string,
  options: SubscriptionOptions,
): Promise<void> {
  const fleet = await fleetOf(context, options);
  if (fleet) {
    if (!(await fleet.removeSubscription(id)))
      throw new CliError(
        EXIT.notFound,
        `no subscription ${id}: see \`minca host subscription list\``,
      );
    context.out.result({ removed: id }, () => `removed ${id}`);
    return;
  }
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
    // What `--json` gives for each: the account it is held for, what it takes, its fingerprint.
    const held = (await host.node.spaces.held()).map((s) => ({
      id: s.id,
      account: s.offeredBy,
      versions: s.versions,
      bytes: s.bytes,
      files: s.files,
      fingerprint: s.fingerprint,
      added: s.added,
    }));
    context.out.result(held, () =>
      held.length === 0
        ? 'holds no space yet'
        : table(
            ['space', 'account', 'versions', 'bytes', 'files'],
            held.map((s) => [
              s.id,
              s.account,
              s.versions,
              formatBytes(s.bytes),
              formatBytes(s.files),
            ]),
          ),
    );
  } finally {
    await host.close();
  }
}
