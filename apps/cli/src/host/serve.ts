/** Serves a node over WebSocket (`ws`): each connection is a peer of the node. */
import {
  createWebSocketTransport,
  type MincaNode,
  type Peer,
  type WebSocketLike,
} from '@minca/core';
import { WebSocketServer } from 'ws';
import { MAX_PAYLOAD } from '../links.js';

export interface Served {
  /** `ws://host:port`, with the port the server got. */
  url: string;
  port: number;
  /** Connected peers now. */
  peers(): number;
  close(): Promise<void>;
}

/** Listens on `bind:port` (port 0: any free one) and connects every socket to `node`. */
export async function serveNode(
  node: MincaNode,
  options: { bind: string; port: number; onPeer?: (peer: Peer) => void },
): Promise<Served> {
  const server = new WebSocketServer({
    host: options.bind,
    port: options.port,
    maxPayload: MAX_PAYLOAD,
  });
  const peers = new Set<Peer>();
  server.on('connection', (socket) => {
    const peer = node.connect(createWebSocketTransport(socket as unknown as WebSocketLike));
    peers.add(peer);
    peer.onEnd(() => peers.delete(peer));
    options.onPeer?.(peer);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.bind.includes(':') ? `[${options.bind}]` : options.bind;
  return {
    url: `ws://${host}:${port}`,
    port,
    peers: () => peers.size,
    async close() {
      for (const peer of [...peers]) peer.close('the host is stopping');
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
