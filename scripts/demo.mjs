// `npm run demo`: installs what the workspace needs (scripts/bootstrap.mjs), builds the demo and
// what it uses, then runs its server (which starts the local host) until Ctrl-C, SIGTERM or
// SIGHUP, or until whoever started this ends. The server and the host run in a process group
// of their own, which this stops as a whole, so nothing is left holding the ports.
//
//   npm run demo -- [--port 5173] [--host-port 8787] [--companion-port 5174]
//                   [--data apps/demo/.data] [--reset]
//   pnpm start   -- the same, without the install
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '5173' },
    'host-port': { type: 'string', default: '8787' },
    'companion-port': { type: 'string', default: '5174' },
    data: { type: 'string', default: join(root, 'apps/demo/.data') },
    reset: { type: 'boolean', default: false },
    'no-install': { type: 'boolean', default: false },
    // For the demo's own stop test, which builds the server itself.
    'no-build': { type: 'boolean', default: false },
  },
});
const step = (file, args) => execFileSync(file, args, { cwd: root, stdio: 'inherit' });

if (!values['no-install']) step(process.execPath, [join(root, 'scripts/bootstrap.mjs')]);
step('pnpm', [
  'exec',
  'turbo',
  'run',
  'build',
  '--filter=@minca/demo...',
  '--output-logs=errors-only',
]);

const data = resolve(values.data);
if (values.reset) {
  // The host's spaces, key and subscriptions, and the short invite links: a fresh start. The
  // browsers keep their own accounts and spaces (clear the site's data there to forget them).
  rmSync(data, { recursive: true, force: true });
  console.log(`minca demo: removed ${data}`);
}

const server = spawn(
  process.execPath,
  [
    join(root, 'apps/demo/dist/server/main.js'),
    '--port',
    values.port,
    '--host-port',
    values['host-port'],
    '--companion-port',
    values['companion-port'],
    '--data',
    data,
  ],
  // Windows has no process groups to signal: there Ctrl-C reaches every process of the console.
  { cwd: root, stdio: 'inherit', detached: process.platform !== 'win32' },
);
const group = process.platform === 'win32' ? server.pid : -server.pid;

let stopping = false;
function stop(signal) {
  if (stopping) return;
  stopping = true;
  try {
    process.kill(group, signal); // the server and the host it started
  } catch {
    // already gone
  }
  // Whatever is still up after 8 s is killed.
  setTimeout(() => {
    try {
      process.kill(group, 'SIGKILL');
    } catch {}
  }, 8000).unref();
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal));
// npm, or the shell it ran this in, gone without a signal for us (even killed with SIGKILL):
// stop too. The shell's own parent is read from /proc where there is one.
const parentOf = (pid) => {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  } catch {
    return undefined;
  }
};
const parent = process.ppid;
const grandparent = parentOf(parent);
const watch = setInterval(() => {
  if (process.ppid !== parent || parentOf(parent) !== grandparent) stop('SIGTERM');
}, 1000);
server.on('exit', (code, signal) => {
  clearInterval(watch);
  // The group may still hold the host if the server died alone.
  try {
    process.kill(group, 'SIGTERM');
  } catch {}
  process.exit(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1));
});
