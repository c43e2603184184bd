// A WebSocket transport tells how much it holds unsent (spec 05 §10.1), over a real socket on
// 127.0.0.1: what waits for a peer that stopped reading, and nothing once it reads again.
import type { AddressInfo } from 'node:net';
import { createWebSocketTransport, type WebSocketLike } from '@minca/core';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';

const MiB = 1024 * 1024;
const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    for (const client of server.clients) client.terminate();
    await new Promise((r) => server.close(r));
  }
});

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(check(), what).toBe(true);
}

describe('a WebSocket transport’s bytes unsent', () => {
  it('counts what waits for a peer that reads nothing, and what waits for the socket to open', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    servers.push(server);
    await new Promise((r) => server.once('listening', r));
    const reader = new Promise<WebSocket>((r) => server.once('connection', r));
    const { port } = server.address() as AddressInfo;
    const socket = new WebSocket(`ws://127.0.0.1:${port}`);
    // ws's handler types are narrower than the structural ones core takes.
    const transport = createWebSocketTransport(socket as unknown as WebSocketLike);
    const chunk = new Uint8Array(128 * 1024);
    // Sent before the socket opened: held by the transport itself.
    transport.send(chunk);
    expect(transport.buffered).toBe(chunk.length);
    const peer = await reader;
    peer.pause();
    let received = 0;
    peer.on('message', (data: Buffer) => {
      received += data.length;
    });
    for (let i = 1; i < 160; i++) transport.send(chunk);
    // 20 MiB sent; the kernel's buffers take a few, the rest waits in the transport.
    await until(() => (transport.buffered ?? 0) > 8 * MiB, 'most of it unsent');
    peer.resume();
    await until(() => received === 160 * chunk.length, 'all of it read');
    expect(transport.buffered).toBe(0);
    transport.close();
  });
});
