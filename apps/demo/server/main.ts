/**
 * The demo's server (root: `npm run demo`, which runs scripts/demo.mjs): starts the local host,
 * with its SQLite data in a folder, serves the built app, and prints the URL.
 *
 *   node dist/server/main.js [--port 5173] [--host-port 8787] [--companion-port 5174]
 *                            [--data apps/demo/.data]
 *
 * The companion app (apps/companion), an app on an origin of its own that connects to this one
 * as its account home, is served on the second port when it is built.
 *
 * Ctrl-C, SIGTERM or SIGHUP stop the app's server and the host, and so does the end of the
 * process that started this one (scripts/demo.mjs), so nothing is left holding the ports.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startHost } from './host.js';
import { inviteStore } from './invites.js';
import { serveApp } from './serve-app.js';

const here = new URL('.', import.meta.url).pathname;

/** The companion app's build (apps/companion/dist), when there is one. */
function companionDist(): string | undefined {
  try {
    const dir = dirname(createRequire(import.meta.url).resolve('@minca/companion/package.json'));
    return existsSync(join(dir, 'dist', 'index.html')) ? join(dir, 'dist') : undefined;
  } catch {
    return undefined;
  }
}
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '5173' },
    'host-port': { type: 'string', default: '8787' },
    'companion-port': { type: 'string', default: '5174' },
    data: { type: 'string', default: resolve(here, '../../.data') },
    bind: { type: 'string', default: '127.0.0.1' },
  },
});

const port = (flag: 'port' | 'host-port' | 'companion-port') => {
  const n = Number(values[flag]);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) {
    console.error(`--${flag} is a port, 0 to 65535 (0: any free one), not ${values[flag]}`);
    process.exit(2);
  }
  return n;
};
const data = resolve(values.data);
const host = await startHost({ dataDir: data, port: port('host-port'), hostname: values.bind });
const app = await serveApp({
  root: resolve(here, '../app'),
  host: () => host,
  invites: inviteStore(join(data, 'invites')),
  port: port('port'),
  hostname: values.bind,
}).catch(async (error: Error) => {
  await host.close();
  console.error(`minca demo: ${error.message}`);
  process.exit(1);
});
const companionRoot = companionDist();
const companion = companionRoot
  ? await serveApp({
      root: companionRoot,
      host: () => host,
      port: port('companion-port'),
      hostname: values.bind,
      // The home at the name the page was reached at, so its origin is the one the browser sees.
      config: (at) => ({ home: `http://${at}:${app.port}/` }),
    }).catch((error: Error) => {
      console.error(`minca demo: no companion app (${error.message})`);
      return undefined;
    })
  : undefined;
console.log(`minca host: ${host.url}, ${host.did} (data in ${data})`);
console.log(`minca demo: ${app.url}  (Ctrl-C stops it)`);
if (companion) console.log(`minca companion app: ${companion.url}  (connects to the demo)`);

let stopping = false;
const stop = async (why: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`minca demo: stopping (${why})`);
  await companion?.close();
  await app.close();
  await host.close();
  process.exit(0);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void stop(signal));
}
// Started by a launcher that is gone (killed without a chance to tell us): stop too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stop('its launcher ended');
}, 1000).unref();
