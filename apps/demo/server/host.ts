/**
 * A local host for the demo: a node over SQLite in a folder, syncing with every browser that
 * connects over WebSocket. Until hosts hold spaces without their key (issue #3) and the CLI's
 * `minca host` (issue #8) land, it holds a space as a reader: a space's owner POSTs it an
 * invite code at `/hold`, `GET /hold/<space id>` says whether it holds one (`{"held":true}`), and `GET /hold` gives its DID.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  createNode,
  createWebSocketTransport,
  isMincaError,
  type MincaNode,
  type WebSocketLike,
} from '@minca/core';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { WebSocketServer } from 'ws';

/** An invite code is a few hundred bytes; anything far larger is not one. */
const MAX_INVITE_BYTES = 16 * 1024;
const SPACE_PATH = /^\/hold\/([a-z2-7]{26})$/;

export interface HostOptions {
  /** Folder of the host's SQLite database (`host.sqlite`); made when missing. */
  dataDir: string;
  /** 0 (the default) takes a free port. */
  port?: number;
  hostname?: string;
}

export interface RunningHost {
  node: MincaNode;
  port: number;
  /** `ws://host:port` */
  url: string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (part: Buffer) => {
      size += part.length;
      if (size > limit) {
        resolve(undefined);
        req.destroy();
      } else parts.push(part);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startHost(options: HostOptions): Promise<RunningHost> {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(options.dataDir, 'host.sqlite'));
  // A host fetches and keeps every file, so a browser reads one while its writer is away.
  const node = await createNode({ stores: sqliteStores(db), fetchFiles: 'all' });
  const hostname = options.hostname ?? '127.0.0.1';

  const answer = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      // The page comes from the app's server, on another port.
      'access-control-allow-origin': '*',
    });
    res.end(text);
  };
  const http = createServer(async (req, res) => {
    try {
      if (req.method === 'GET' && req.url === '/hold') return answer(res, 200, node.did);
      const space = SPACE_PATH.exec(req.url ?? '')?.[1];
      if (req.method === 'GET' && space) {
        const held = (await node.spaces.list()).includes(space);
        return answer(res, 200, JSON.stringify({ held }));
      }
      if (req.method === 'POST' && req.url === '/hold') {
        const code = await readBody(req, MAX_INVITE_BYTES);
        if (code === undefined) return answer(res, 413, 'an invite code is smaller than that');
        const joined = await node.spaces.join(code.trim());
        return answer(res, 201, joined.id);
      }
      if (req.method === 'OPTIONS') return answer(res, 204, '');
      answer(res, 404, 'not found');
    } catch (error) {
      // A bad code from a browser: say why, and keep going.
      if (isMincaError(error)) answer(res, 400, `${error.code}: ${error.message}`);
      else answer(res, 500, 'the host failed');
    }
  });
  const sockets = new WebSocketServer({ server: http, maxPayload: 8 * 1024 * 1024 });
  sockets.on('connection', (socket) => {
    node.connect(createWebSocketTransport(socket as unknown as WebSocketLike));
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, hostname, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  return {
    node,
    port,
    url: `ws://${hostname}:${port}`,
    async close() {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await node.close();
      db.close();
    },
  };
}
