// One Yjs peer in its own process, for the sync benchmark's comparison: `serve <count>` fills a
// Y.Doc with `count` small records (a Y.Map of plain objects, one transaction each, as minca's
// fixture puts one at a time) and listens on a loopback WebSocket; `join <port>` connects with
// an empty doc and syncs the way y-websocket does it (each side sends its state vector, each
// answers with the update the other lacks), then reports how long, the bytes and its peak RSS.
import { readFileSync } from 'node:fs';
import { WebSocket, WebSocketServer } from 'ws';
import * as Y from 'yjs';

const [role, arg] = process.argv.slice(2);
/** Peak RSS, KiB: VmHWM, not getrusage's maxRSS, which on Linux a fork carries over from the parent. */
function peakKiB(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]);
  } catch {
    // not Linux: the rusage figure
  }
  return process.resourceUsage().maxRSS;
}
const say = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);
const STEP1 = 0;
const STEP2 = 1;

/** A frame: its kind, then the payload (a state vector or an update). */
const frame = (kind: number, payload: Uint8Array) => {
  const out = new Uint8Array(payload.length + 1);
  out[0] = kind;
  out.set(payload, 1);
  return out;
};

/** Answers a peer's frames on `doc`: a state vector with the update it lacks; an update applied. */
function answer(doc: Y.Doc, socket: WebSocket, data: Uint8Array): 'step1' | 'step2' {
  const payload = data.subarray(1);
  if (data[0] === STEP1) {
    socket.send(frame(STEP2, Y.encodeStateAsUpdate(doc, payload)));
    return 'step1';
  }
  Y.applyUpdate(doc, payload);
  return 'step2';
}

if (role === 'serve') {
  const doc = new Y.Doc();
  const posts = doc.getMap('posts');
  for (let i = 0; i < Number(arg); i++)
    doc.transact(() => posts.set(`r${i}`, { from: 'server', i, text: `post ${i} from server` }));
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 1 << 30 });
  server.on('connection', (socket) => {
    socket.on('message', (data: Buffer) => answer(doc, socket, new Uint8Array(data)));
    socket.send(frame(STEP1, Y.encodeStateVector(doc)));
  });
  server.once('listening', () => {
    const address = server.address();
    say({ port: typeof address === 'object' && address ? address.port : 0 });
  });
} else {
  const doc = new Y.Doc();
  const start = performance.now();
  let sent = 0;
  let received = 0;
  const socket = new WebSocket(`ws://127.0.0.1:${arg}`, { maxPayload: 1 << 30 });
  const send = socket.send.bind(socket);
  socket.send = ((data: Uint8Array) => {
    sent += data.length;
    send(data);
  }) as typeof socket.send;
  socket.on('open', () => socket.send(frame(STEP1, Y.encodeStateVector(doc))));
  socket.on('message', (data: Buffer) => {
    received += data.length;
    if (answer(doc, socket, new Uint8Array(data)) !== 'step2') return;
    const ms = performance.now() - start;
    say({
      ms,
      records: doc.getMap('posts').size,
      sent,
      received,
      maxRssKiB: peakKiB(),
    });
    socket.close();
    process.exit(0);
  });
}
