/**
 * Serves the built app (dist/app) and `/config.json`, which tells the page where its host is.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export interface AppServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** `hostPort` is where the host listens, on the same machine as the page's server. */
export async function serveApp(options: {
  root: string;
  hostPort: number | undefined;
  port?: number;
  hostname?: string;
}): Promise<AppServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (path === '/config.json') {
      const at = (req.headers.host ?? hostname).replace(/:\d+$/, '');
      const host =
        options.hostPort === undefined
          ? undefined
          : {
              sync: `ws://${at}:${options.hostPort}`,
              hold: `http://${at}:${options.hostPort}/hold`,
            };
      res.writeHead(200, { 'content-type': TYPES['.json'], 'cache-control': 'no-store' });
      return res.end(JSON.stringify({ host }));
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
