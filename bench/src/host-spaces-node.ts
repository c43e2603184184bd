// The host of the host-spaces benchmark, in a process of its own so its RSS is the host's alone:
// `node host-spaces-node.js <sqlite file> <idle ms> <max open>`. A holder over
// SQLite (the database the benchmark filled), serving on a WebSocket on 127.0.0.1. It prints
// `{ port }`, then answers each line of stdin (`stats`, `stop`) with one JSON line.
import * as crypto from 'node:crypto';
import { createInterface } from 'node:readline';
import { createNode, createWebSocketTransport, nodeCrypto, WEBSOCKET_DEFLATE } from '@minca/core';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { WebSocketServer } from 'ws';
import { heapKept } from './heap.js';

const [file, idleArg, maxArg] = process.argv.slice(2);

const db = new Database(file!);
const node = await createNode({
  stores: sqliteStores(db),
  holding: {},
  crypto: nodeCrypto(crypto),
  openSpaces: { idleMs: Number(idleArg), max: Number(maxArg) },
});
// As a minca host serves: compressed where the client offers it (zlib state counts in its RSS).
const server = new WebSocketServer({
  host: '127.0.0.1',
  port: 0,
  maxPayload: 4 * 1024 * 1024,
  perMessageDeflate: WEBSOCKET_DEFLATE,
});
server.on('connection', (socket) => node.connect(createWebSocketTransport(socket as never)));
await new Promise((resolve) => server.once('listening', resolve));
const say = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);
say({ port: (server.address() as { port: number }).port });

/** Most spaces seen open at once, sampled every 50 ms. */
let mostOpen = 0;
const sampler = setInterval(() => {
  mostOpen = Math.max(mostOpen, node.spaces.stats().open);
}, 50);

for await (const line of createInterface({ input: process.stdin })) {
  const { cmd } = JSON.parse(line) as { cmd: string };
  if (cmd === 'stats') {
    say({
      ...node.spaces.stats(),
      mostOpen,
      heap: heapKept(),
      rss: process.memoryUsage().rss,
      maxRss: process.resourceUsage().maxRSS * 1024,
    });
  } else if (cmd === 'stop') {
    clearInterval(sampler);
    await node.close();
    await new Promise((resolve) => server.close(resolve));
    db.close();
    say({ stopped: true });
    process.exit(0);
  }
}
