/**
 * A TCP proxy on 127.0.0.1 in front of a local port, holding what that port sends back on each
 * connection to a byte rate: put in front of the host, the host is a peer limited to that rate
 * for whoever connects through it. What the client sends goes through as it comes. A token
 * bucket, as bench/src/throttled-transport.ts holds a transport's sends: bytes go as the bucket
 * fills, so the rate holds over time whatever the pieces' sizes. Counts what it let through.
 */
import { createServer, Socket } from 'node:net';

export interface ThrottleProxy {
  port: number;
  /** Bytes sent back to clients so far, all connections together. */
  sentBack(): number;
  close(): Promise<void>;
}

/** Bytes that may go at once after a pause. */
const BURST = 16 * 1024;
/** What is read from the target ahead of the rate before it is paused. */
const HIGH_WATER = 256 * 1024;

export async function throttleProxy(
  target: number,
  bytesPerSecond: number,
): Promise<ThrottleProxy> {
  let sent = 0;
  const sockets = new Set<Socket>();

  const server = createServer((client) => {
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    const queue: Buffer[] = [];
    let queued = 0;
    let tokens = BURST;
    let at = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const drain = () => {
      timer = undefined;
      const now = performance.now();
      tokens = Math.min(BURST, tokens + ((now - at) / 1000) * bytesPerSecond);
      at = now;
      while (queue.length > 0 && tokens >= 1 && !client.destroyed) {
        const head = queue[0]!;
        const part = head.subarray(0, Math.floor(Math.min(tokens, head.length)));
        if (part.length === head.length) queue.shift();
        else queue[0] = head.subarray(part.length);
        tokens -= part.length;
        queued -= part.length;
        sent += part.length;
        client.write(part);
      }
      if (queued < HIGH_WATER && upstream.isPaused()) upstream.resume();
      if (queue.length > 0 && !client.destroyed) {
        const wait = ((Math.min(BURST, queue[0]!.length) - tokens) / bytesPerSecond) * 1000;
        timer = setTimeout(drain, Math.max(1, wait));
      }
    };
    const end = () => {
      if (timer) clearTimeout(timer);
      queue.length = 0;
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    upstream.on('data', (data: Buffer) => {
      queue.push(data);
      queued += data.length;
      if (queued >= HIGH_WATER) upstream.pause();
      if (!timer) drain();
    });
    client.on('data', (data: Buffer) => upstream.write(data));
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
    upstream.connect(target, '127.0.0.1');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    sentBack: () => sent,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
