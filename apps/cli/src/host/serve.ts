/**
 * Serves a node over WebSocket (`ws`): each connection is a peer of the node. Connections wait
 * at a gate until their handshake is done (a deadline, and caps on those waiting), and the
 * server takes no more connections at once than its file limit leaves room for. Spec 06 §5.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  createWebSocketTransport,
  type MincaNode,
  type Peer,
  WEBSOCKET_DEFLATE,
  type WebSocketLike,
} from '@minca/core';
import { WebSocketServer } from 'ws';
import { MAX_PAYLOAD } from '../links.js';
import { ConnectionGate, type GateStats } from './connection-gate.js';
import { type ConnectionLimits, connectionLimits } from './file-limit.js';

export interface Served {
  /** `ws://host:port`, with the port the server got. */
  url: string;
  port: number;
  /** Connected peers now. */
  peers(): number;
  /** Connections waiting for their handshake, and those closed for it. */
  gate(): GateStats;
  readonly limits: ConnectionLimits;
  close(): Promise<void>;
}

/** Listens on `bind:port` (port 0: any free one) and connects every socket to `node`. */
export async function serveNode(
  node: MincaNode,
  options: {
    bind: string;
    port: number;
    onPeer?: (peer: Peer) => void;
    /** Caps and the handshake deadline; by default from the process's file limit. */
    limits?: Partial<ConnectionLimits>;
    /** Told of a failure to accept a connection (out of files), which the server survives. */
    onError?: (error: Error) => void;
  },
): Promise<Served> {
  const limits = { ...connectionLimits(), ...options.limits };
  const gate = new ConnectionGate(limits);
  // Plain HTTP gets told what this is; only upgrades to WebSocket go on.
  const http = createServer((_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(426, { 'content-type': 'text/plain', connection: 'close' });
    res.end('a minca peer: connect over WebSocket\n');
  });
  http.maxConnections = limits.maxConnections;
  // A client that never finishes its upgrade request is also held to the deadline.
  http.headersTimeout = limits.handshakeMs;
  http.requestTimeout = limits.handshakeMs;
  http.on('connection', (socket: Socket) => gate.admit(socket));
  const server = new WebSocketServer({
    server: http,
    maxPayload: MAX_PAYLOAD,
    perMessageDeflate: WEBSOCKET_DEFLATE,
  });
  const peers = new Set<Peer>();
  server.on('connection', (socket, request) => {
    const raw = request.socket;
    socket.once('message', () => gate.spoke(raw));
    const peer = node.connect(createWebSocketTransport(socket as unknown as WebSocketLike));
    gate.upgraded(raw, () => peer.did !== undefined);
    peers.add(peer);
    peer.onEnd(() => peers.delete(peer));
    options.onPeer?.(peer);
  });
  // Errors of one socket (a reset, a bad frame) are that socket's; the server goes on.
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    http.once('listening', resolve);
    http.once('error', reject);
    http.listen(options.port, options.bind);
  });
  http.on('error', (error) => options.onError?.(error));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.bind.includes(':') ? `[${options.bind}]` : options.bind;
  return {
    url: `ws://${host}:${port}`,
    port,
    limits,
    peers: () => peers.size,
    gate: () => gate.stats(),
    async close() {
      gate.close();
      for (const peer of [...peers]) peer.close('the host is stopping');
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
