/**
 * Serves the built app (dist/app) or the companion app, `/config.json`, which tells the page
 * where its host is and who it is (and the companion where its account home is), `POST /subscribe` (an account's DID as the body), which lets that account keep
 * spaces on the local host, and short invite links' sealed bytes (`POST /invites`,
 * `GET /invites/<id>`, see invites.ts).
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { type InviteStore, MAX_INVITE_BYTES } from './invites.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

function answer(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** The body, or `undefined` past `limit` bytes (read on, and dropped, up to 1 MiB). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (part: Buffer) => {
      size += part.length;
      if (size <= limit) parts.push(part);
      // Read to the end, so the answer reaches the client; past 1 MiB, hang up instead.
      else if (size > 1024 * 1024) {
        resolve(undefined);
        req.destroy();
      }
    });
    req.on('end', () => resolve(size > limit ? undefined : Buffer.concat(parts)));
    req.on('error', reject);
  });
}

export interface AppServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** The local host as the page's server sees it (see host.ts). */
export interface AppHost {
  port: number;
  did: string;
  subscribe(did: string): Promise<void>;
}

/** A DID is about 56 characters; anything far larger is not one. */
const MAX_DID_BYTES = 256;

/** `host` listens on the same machine as the page's server. */
export async function serveApp(options: {
  root: string;
  host: () => AppHost | undefined;
  /** Where short invite links keep their sealed bytes; without it, `/invites` is 404. */
  invites?: InviteStore;
  port?: number;
  hostname?: string;
  /**
   * More for `/config.json`, given the host name the page was reached at: the companion app is
   * told where its account home is.
   */
  config?: (at: string) => Record<string, unknown>;
}): Promise<AppServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  const server = createServer(async (req, res) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      return answer(res, 400, 'not a path');
    }
    const running = options.host();
    if (path === '/subscribe' && req.method === 'POST') {
      const did = await readBody(req, MAX_DID_BYTES);
      if (!running) return answer(res, 503, 'no host');
      if (did === undefined) return answer(res, 413, 'a DID is shorter than that');
      try {
        await running.subscribe(did.toString('utf8').trim());
        return answer(res, 204, '');
      } catch (error) {
        return answer(res, 400, (error as Error).message);
      }
    }
    if (path === '/invites' && req.method === 'POST' && options.invites) {
      const sealed = await readBody(req, MAX_INVITE_BYTES);
      if (sealed === undefined) return answer(res, 413, 'an invite is smaller than that');
      if (sealed.length === 0) return answer(res, 400, 'an invite has bytes');
      const id = await options.invites.put(sealed);
      if (id === undefined) return answer(res, 507, 'too many invites kept here');
      res.writeHead(201, { 'content-type': TYPES['.json'] });
      return res.end(JSON.stringify({ id }));
    }
    if (path.startsWith('/invites/') && req.method === 'GET' && options.invites) {
      const sealed = await options.invites.get(path.slice('/invites/'.length));
      if (!sealed) return answer(res, 404, 'no such invite: it may have been used up or expired');
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'cache-control': 'no-store',
      });
      return res.end(sealed);
    }
    if (path === '/config.json') {
      const at = (req.headers.host ?? hostname).replace(/:\d+$/, '');
      const host =
        running === undefined
          ? undefined
          : { sync: `ws://${at}:${running.port}`, did: running.did, subscribe: '/subscribe' };
      res.writeHead(200, { 'content-type': TYPES['.json'], 'cache-control': 'no-store' });
      return res.end(JSON.stringify({ ...options.config?.(at), host }));
    }
    // normalize keeps the path inside root: "/../x" becomes "/x".
    const file = join(options.root, normalize(path === '/' ? '/index.html' : path));
    try {
      const bytes = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(bytes);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, hostname, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${hostname}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
