/** The `minca` command line: every command and its options (commander). */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { CliError, describeFailure, EXIT, type ExitCode } from './cli-error.js';
import { agentEnd, agentList, agentStart } from './commands/agent.js';
import { daemon } from './commands/daemon.js';
import { deviceAdd, deviceJoin, deviceList, deviceRemove } from './commands/device.js';
import { fileAdd, fileRead } from './commands/files.js';
import {
  fleetJoin,
  fleetNew,
  hostStatus,
  type ServeOptions,
  serve,
  subscriptionAdd,
  subscriptionList,
  subscriptionRemove,
} from './commands/host.js';
import { init } from './commands/init.js';
import { get, list, put, remove } from './commands/records.js';
import {
  spaceAllow,
  spaceCreate,
  spaceInvite,
  spaceJoin,
  spaceList,
  spaceRemoveMember,
  spaceStatus,
} from './commands/spaces.js';
import { status } from './commands/status.js';
import { sync } from './commands/sync.js';
import { type Context, createContext, type GlobalOptions } from './context.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** This package's version, for `minca --version` (package.json sits beside src/ and dist/). */
const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** Builds the program; `run` parses `argv` and gives the exit code. */
export function buildProgram(env: NodeJS.ProcessEnv): Command {
  const program = new Command('minca')
    .description('minca: local-first spaces of records and files, synced with peers and hosts')
    .option('--home <dir>', 'the account home (env MINCA_HOME; default ~/.minca)')
    .option('--config <file>', 'config file (env MINCA_CONFIG; default <home>/config.json)')
    .option('--json', 'print JSON for scripts (env MINCA_JSON=1)')
    .option('--agent <slot>', 'run as an agent slot (env MINCA_AGENT): see minca agent')
    .version(VERSION, '-V, --version', 'print the version of minca')
    .showHelpAfterError('(run minca help for every command)')
    .exitOverride();

  const context = (): Context => createContext(program.opts<GlobalOptions>(), env);
  const action =
    <A extends unknown[]>(run: (context: Context, ...args: A) => Promise<void>) =>
    async (...args: A) => {
      await run(context(), ...args);
    };

  program
    .command('init')
    .description('make an account in the home folder')
    .option('--folder <dir>', 'keep the account in a data folder (asks for a recovery passphrase)')
    .option('--label <name>', "this device's name (default: the host name)")
    .option('--pair', 'join the account already in --folder with a pairing code instead')
    .option('--passphrase', 'join the account already in --folder with its recovery passphrase')
    .action(action((c, o) => init(c, o)));

  const device = program
    .command('device')
    .description("the account's devices: each has its own key, certified by the account");
  device
    .command('list')
    .description('the devices of this account')
    .action(action((c) => deviceList(c)));
  device
    .command('add')
    .description('pair a new device through the data folder: shows a one-time code, then waits')
    .option('--label <name>', 'a name for the new device (default: the one it gives)')
    .option('--code-file <path>', 'write the code to this file (mode 0600) instead of the terminal')
    .option('--timeout <s>', 'seconds to wait for the new device (default and most: 600)')
    .action(action((c, o) => deviceAdd(c, o)));
  device
    .command('join')
    .description(
      'add this device to the account in a data folder (a pairing code, or --passphrase)',
    )
    .requiredOption('--folder <dir>', 'the data folder (its copy on this device)')
    .option('--label <name>', "this device's name (default: the host name)")
    .option('--passphrase', 'use the recovery passphrase rather than a pairing code')
    .option('--timeout <s>', 'seconds to wait for the answer to a pairing code (default 600)')
    .action(action((c, o) => deviceJoin(c, o)));
  device
    .command('remove <device>')
    .description('revoke a device (its DID or label): nothing it signs from now on stands')
    .action(action((c, which: string) => deviceRemove(c, which)));

  program
    .command('status')
    .description('the account, and per space its fingerprint and how it stands with each peer')
    .option(
      '--peer <url>',
      'a peer to check against (repeatable; env MINCA_PEERS, config peers)',
      collect,
    )
    .option('--offline', 'do not connect to peers')
    .option('--timeout <s>', 'seconds to wait for peers (default 60)')
    .action(
      action((c, o: { peer?: string[]; offline?: boolean; timeout?: string }) => status(c, o)),
    );

  const space = program.command('space').description('spaces: create, list, invite, join, status');
  space
    .command('create')
    .description('create a space you own')
    .action(action((c) => spaceCreate(c)));
  space
    .command('list')
    .description('the spaces of this account')
    .action(action((c) => spaceList(c)));
  space
    .command('invite <space>')
    .description('an invite code for one person (it holds the space key)')
    .option('--role <role>', 'reader or writer', 'writer')
    .action(action((c, id: string, o: { role?: string }) => spaceInvite(c, id, o)));
  space
    .command('join <code>')
    .description('join a space with an invite code')
    .action(action((c, code: string) => spaceJoin(c, code)));
  space
    .command('allow <space> <holder>')
    .description('let a host (its DID or ws:// URL) hold the space without its key')
    .option('--carrier', 'as a carrier rather than a host')
    .option('--timeout <s>', 'seconds to reach a URL (default 60)')
    .action(action((c, id: string, holder: string, o) => spaceAllow(c, id, holder, o)));
  space
    .command('status <space>')
    .description("a space's fingerprint, versions, collections, and invites used twice")
    .action(action((c, id: string) => spaceStatus(c, id)));
  space
    .command('remove-member <space> <did>')
    .description("take an account's role away from now on, and change the space's key")
    .action(action((c, id: string, did: string) => spaceRemoveMember(c, id, did)));

  program
    .command('put <space> <collection> [body]')
    .description('write a record: body as JSON, @file, or - for stdin')
    .option('--id <id>', 'write a new version of this record')
    .action(
      action((c, s: string, col: string, body: string | undefined, o: { id?: string }) =>
        put(c, s, col, body, o),
      ),
    );
  program
    .command('get <space> <collection> <id>')
    .description('read a record (its body; --json: the whole record)')
    .action(action((c, s: string, col: string, id: string) => get(c, s, col, id)));
  program
    .command('list <space> <collection>')
    .description('the records of a collection that stand')
    .option('--order <order>', 'id, newest or oldest', 'id')
    .option('--limit <n>', 'at most this many')
    .action(
      action((c, s: string, col: string, o: { order?: string; limit?: string }) =>
        list(c, s, col, o),
      ),
    );
  program
    .command('delete <space> <collection> <id>')
    .description('delete a record')
    .action(action((c, s: string, col: string, id: string) => remove(c, s, col, id)));

  const file = program.command('file').description('files: add one to a space, read one back');
  file
    .command('add <space> <path>')
    .description('add a file, and a record naming it (prints the record id)')
    .option('--collection <name>', 'collection of the record naming it', 'app.file')
    .option('--mime <type>', 'its media type')
    .option('--name <name>', 'its name (default: the file name)')
    .action(action((c, s: string, path: string, o) => fileAdd(c, s, path, o)));
  file
    .command('read <space> <collection> <id>')
    .description('read the file a record names, fetching it from peers if needed')
    .option('--out <path>', 'where to write it (default: its name; - for stdout)')
    .option(
      '--peer <url>',
      'a peer to fetch from (repeatable; env MINCA_PEERS, config peers)',
      collect,
    )
    .option('--timeout <s>', 'give up after this many seconds (default 60)')
    .action(action((c, s: string, col: string, id: string, o) => fileRead(c, s, col, id, o)));

  program
    .command('sync [url...]')
    .description('sync every shared space with peers until level, then stop')
    .option('--timeout <s>', 'give up after this many seconds (default 60)')
    .action(action((c, urls: string[], o: { timeout?: string }) => sync(c, urls, o)));

  const agent = program
    .command('agent')
    .description('agent sessions: each a slot with its own key and stores, under <home>/agent');
  agent
    .command('start')
    .description('start a session: a new slot whose own key writes for the account in its spaces')
    .option('--label <text>', 'what the session is for')
    .option('--role <role>', 'writer (default), or reader: what it writes never stands')
    .option('--space <id>', 'only this space (repeatable; default: every space you own)', collect)
    .action(action((c, o) => agentStart(c, o)));
  agent
    .command('list')
    .description('the agent slots')
    .action(action((c) => agentList(c)));
  agent
    .command('end <slot>')
    .description('sync a slot into the account one last time, revoke its key, and remove it')
    .action(action((c, slot: string) => agentEnd(c, slot)));

  program
    .command('daemon')
    .description('stay up: sync every space with its peers, reloading what commands write')
    .option(
      '--peer <url>',
      'a peer to sync with (repeatable; env MINCA_PEERS, config peers)',
      collect,
    )
    .option('--listen <port>', 'also serve this account to peers on a port (env MINCA_LISTEN)')
    .option('--bind <address>', 'address to listen on (default 127.0.0.1)')
    .action(action((c, o: { peer?: string[]; listen?: string; bind?: string }) => daemon(c, o)));

  const serveOptions = (command: Command, kind: 'host' | 'carrier') =>
    command
      .option('--port <port>', `port to listen on (env MINCA_PORT; default 4455; 0: any free)`)
      .option('--bind <address>', 'address to listen on (env MINCA_BIND; default 127.0.0.1)')
      .option(
        '--data <dir>',
        `where it keeps its stores (env MINCA_${kind.toUpperCase()}_DATA; default <home>/${kind})`,
      )
      .option('--s3-endpoint <url>', 'mirror to this S3-compatible service (env MINCA_S3_ENDPOINT)')
      .option(
        '--s3-bucket <name>',
        'the bucket (env MINCA_S3_BUCKET); keys: MINCA_S3_ACCESS_KEY_ID, MINCA_S3_SECRET_ACCESS_KEY',
      )
      .option('--s3-prefix <prefix>', 'keep everything under this prefix in the bucket')
      .option('--s3-region <region>', 'SigV4 region (default auto)')
      .option(
        '--chunk-budget <bytes>',
        'file chunks kept on disk beside the database before those in the bucket leave it, e.g. 20GiB (env MINCA_CHUNK_BUDGET; default no limit)',
      )
      .option(
        '--advertise <url>',
        'a fleet host: the URL the other hosts reach it at (env MINCA_ADVERTISE; default the one it listens on)',
      );

  const host = serveOptions(
    program
      .command('host')
      .description('run a host: a server node keeping spaces per subscription'),
    'host',
  ).action(action((c, o) => serve(c, 'host', o)));
  host
    .command('status')
    .description('the spaces this host holds, per account, and what they take')
    .option('--data <dir>', 'the host data folder')
    .action(action((c, o: { data?: string }) => hostStatus(c, withHostData(o))));
  // `--data` after `subscription` may be parsed as the host command's own: take either. The
  // bucket's flags are the host command's (a fleet keeps its subscriptions there).
  const withHostData = <O extends { data?: string }>(o: O): O => {
    const { s3Endpoint, s3Bucket, s3Prefix, s3Region, data } = host.opts<ServeOptions>();
    return {
      ...{ s3Endpoint, s3Bucket, s3Prefix, s3Region },
      ...o,
      data: o.data ?? data,
    };
  };
  const subscription = host
    .command('subscription')
    .description("the host's subscriptions (spec 06)");
  subscription
    .command('add <account>')
    .description('let an account (its DID) keep spaces on this host')
    .option('--data <dir>', 'the host data folder')
    .option('--spaces <n>', 'most spaces held at once', '10')
    .option('--bytes <size>', 'most bytes held, such as 500MiB', '1GiB')
    .option('--expires <when>', 'a date, a number of days (30d), or never', 'never')
    .action(action((c, account: string, o) => subscriptionAdd(c, account, withHostData(o))));
  subscription
    .command('list')
    .option('--data <dir>', 'the host data folder')
    .description('every subscription')
    .action(action((c, o) => subscriptionList(c, withHostData(o))));
  subscription
    .command('remove <id>')
    .option('--data <dir>', 'the host data folder')
    .description('remove a subscription (what it held stays)')
    .action(action((c, id: string, o) => subscriptionRemove(c, id, withHostData(o))));

  const fleet = host.command('fleet').description('a fleet of hosts over one bucket (spec 06 §6)');
  fleet
    .command('new <file>')
    .description('make a fleet key in <file>: keep it off the hosts')
    .action(action((c, file: string) => fleetNew(c, file)));
  fleet
    .command('join <fleet-key>')
    .description("certify this host's key for the fleet (writes <data>/fleet.cert)")
    .option('--data <dir>', 'the host data folder')
    .action(action((c, file: string, o) => fleetJoin(c, file, withHostData(o))));

  serveOptions(
    program.command('carrier').description('run a carrier: a relay keeping every file'),
    'carrier',
  ).action(action((c, o) => serve(c, 'carrier', o)));

  return program;
}

/** Runs the command line and gives its exit code; errors go to stderr as one line. */
export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  const program = buildProgram(env);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not failures; commander has printed them.
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.help' ||
        error.code === 'commander.version'
      )
        return EXIT.ok;
      return EXIT.usage;
    }
    const { exitCode, message } = describeFailure(error);
    process.stderr.write(`minca: ${message}\n`);
    if (exitCode === EXIT.failed && !(error instanceof CliError) && env.MINCA_DEBUG)
      console.error(error);
    return exitCode;
  }
}
