// A hostile client for the host tests, run as its own process (so its own file limit can be
// raised): holds `count` silent connections to a host, half of them bare TCP that never send a
// byte, half WebSockets that upgrade and then never speak. Each one the host closes is opened
// again after `reopenMs`. Prints its counts as a JSON line every 250 ms; stops on SIGTERM.
//   node silent-sockets.mjs ws://127.0.0.1:port count reopenMs
import { connect } from 'node:net';
import { WebSocket } from 'ws';

const [url, countArg, reopenArg] = process.argv.slice(2);
const target = new URL(url);
const count = Number(countArg);
const reopenMs = Number(reopenArg ?? 100);
const stats = { open: 0, opened: 0, closedByHost: 0, failed: 0 };
const live = new Set();
let stopping = false;

function bare() {
  const socket = connect(Number(target.port), target.hostname);
  let opened = false;
  socket.on('connect', () => {
    opened = true;
    stats.open++;
    stats.opened++;
  });
  socket.on('error', () => undefined);
  socket.on('close', () => ended(socket, opened, bare));
  live.add(socket);
}

function upgraded() {
  const socket = new WebSocket(url);
  let opened = false;
  socket.on('open', () => {
    opened = true;
    stats.open++;
    stats.opened++;
  });
  socket.on('error', () => undefined);
  socket.on('close', () => ended(socket, opened, upgraded));
  live.add(socket);
}

function ended(socket, opened, again) {
  live.delete(socket);
  if (opened) {
    stats.open--;
    if (!stopping) stats.closedByHost++;
  } else if (!stopping) stats.failed++;
  if (!stopping) setTimeout(again, reopenMs);
}

for (let i = 0; i < count; i++) (i % 2 === 0 ? bare : upgraded)();
const report = setInterval(() => process.stdout.write(`${JSON.stringify(stats)}\n`), 250);

process.on('SIGTERM', () => {
  stopping = true;
  clearInterval(report);
  for (const socket of live) (socket.terminate ?? socket.destroy).call(socket);
  setTimeout(() => process.exit(0), 200);
});
