/**
 * `pnpm start` in apps/demo (root: `npm run demo`): starts the local host, with its SQLite
 * data in a folder, serves the built app, and prints the URL.
 *
 *   node dist/server/main.js [--port 5173] [--host-port 8787] [--data .data]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startHost } from './host.js';
import { serveApp } from './serve-app.js';

const here = new URL('.', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '5173' },
    'host-port': { type: 'string', default: '8787' },
    data: { type: 'string', default: resolve(here, '../../.data') },
  },
});

const host = await startHost({ dataDir: values.data, port: Number(values['host-port']) });
const app = await serveApp({
  root: resolve(here, '../app'),
  host: () => host,
  port: Number(values.port),
});
console.log(`minca host: ${host.url}, ${host.did} (data in ${values.data})`);
console.log(`minca demo: ${app.url}`);

const stop = async () => {
  await app.close();
  await host.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
