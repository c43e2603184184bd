// One job of the file-stream benchmark, in a process of its own so that its peak RSS is the
// node's alone: `node file-stream-node.js '<json job>'`. Each node keeps its stores in a
// folder on disk (directory stores, without fsync), so the file's bytes are on disk, not in
// the process. Answers are one JSON object per line on stdout, each with the process's peak
// RSS so far (MiB, VmHWM).
//   idle:  a node and a space, nothing more: what a node process takes at all
//   add:   adds a file of `mib` MiB of random bytes from a stream (an async generator)
//   read:  reads that file back as a stream (openFile … chunks()), hashing it as it comes
//   serve: serves the space over a WebSocket on 127.0.0.1 to the member `reader`; on the
//          line `report` from stdin, answers its peak RSS and ends
//   fetch: joins with the ticket, connects, and reads the file as a stream from the peer
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  createNode,
  createWebSocketTransport,
  type FileRef,
  keepConnected,
  SigningKey,
} from '@minca/core';
import { directoryStores } from '@minca/folder';
import { WebSocket, WebSocketServer } from 'ws';

const MIB = 1024 * 1024;
const job = JSON.parse(process.argv[2]!) as Record<string, unknown> & {
  cmd: string;
  dir: string;
  secret: string;
};
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const unhex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));
/**
 * This process's peak RSS, MiB: VmHWM, the high-water mark of its own memory since it started.
 * Not getrusage's maxRSS, which on Linux carries the parent's RSS at fork over into the child.
 */
function peakMiB(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]) / 1024;
  } catch {
    // not Linux: the rusage figure, which a fork may have raised
  }
  return process.resourceUsage().maxRSS / 1024;
}
const say = (message: object) =>
  process.stdout.write(`${JSON.stringify({ ...message, peakMiB: peakMiB() })}\n`);
type WireRef = Omit<FileRef, 'key'> & { key: string };
const refOf = (wire: WireRef): FileRef => ({ ...wire, key: unhex(wire.key) });

const node = await createNode({
  stores: directoryStores(job.dir, { sync: false, onProblem: () => undefined }),
  key: SigningKey.fromSecret(unhex(job.secret)),
});

/** Reads the whole file as a stream, hashing the pieces: its SHA-256 and the ms it took. */
async function readStreamed(space: string, ref: FileRef) {
  const start = performance.now();
  const file = await node.records.openFile(space, ref);
  const hash = createHash('sha256');
  let size = 0;
  for await (const piece of file.chunks()) {
    hash.update(piece);
    size += piece.length;
  }
  await file.close();
  return { ms: performance.now() - start, size, sha: hash.digest('hex') };
}

switch (job.cmd) {
  case 'idle': {
    await node.spaces.create();
    say({});
    break;
  }
  case 'add': {
    const space = (await node.spaces.create()).id;
    const mib = job.mib as number;
    const hash = createHash('sha256');
    async function* pieces() {
      for (let i = 0; i < mib; i++) {
        const piece = new Uint8Array(randomBytes(MIB));
        hash.update(piece);
        yield piece;
      }
    }
    const start = performance.now();
    const ref = await node.records.addFile(space, pieces(), { size: mib * MIB, name: 'big.bin' });
    const ms = performance.now() - start;
    await node.records.put(space, 'app.file', { ref });
    say({ space, ref: { ...ref, key: hex(ref.key) }, sha: hash.digest('hex'), ms });
    break;
  }
  case 'read': {
    say(await readStreamed(job.space as string, refOf(job.ref as WireRef)));
    break;
  }
  case 'serve': {
    const space = job.space as string;
    await node.spaces.setRole(space, job.reader as string, 'reader');
    const t = await node.spaces.share(space, job.reader as string);
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 4 * MIB });
    server.on('connection', (socket) => node.connect(createWebSocketTransport(socket as never)));
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    say({
      port,
      ticket: { id: t.id, key: hex(t.key), owner: t.owner, versions: t.versions.map(hex) },
    });
    for await (const line of createInterface({ input: process.stdin })) {
      if (line.trim() !== 'report') continue;
      say({});
      server.close();
      break;
    }
    break;
  }
  case 'fetch': {
    const ticket = job.ticket as { id: string; key: string; owner: string; versions: string[] };
    const space = (
      await node.spaces.join({
        ...ticket,
        key: unhex(ticket.key),
        versions: ticket.versions.map(unhex),
      } as never)
    ).id;
    await node.setFileLimits({ ahead: 0 });
    const link = keepConnected(
      () => new WebSocket(`ws://127.0.0.1:${job.port}`, { maxPayload: 4 * MIB }) as never,
      (transport) => node.connect(transport),
    );
    const ref = refOf(job.ref as WireRef);
    for (let i = 0; i < 6000 && !(await node.files.named(space)).includes(ref.$file); i++)
      await new Promise((r) => setTimeout(r, 10));
    const read = await readStreamed(space, ref);
    link.close();
    say(read);
    break;
  }
  default:
    throw new Error(`no job ${job.cmd}`);
}
await node.close();
process.exit(0);
