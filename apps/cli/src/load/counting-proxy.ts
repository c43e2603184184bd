/**
 * An HTTP proxy on 127.0.0.1 in front of an S3-compatible server that counts the requests
 * through it by kind (GET of an object, LIST, PUT, DELETE), for "bucket requests per 1,000
 * versions". Requests and answers are piped through untouched (the Host header too, so SigV4
 * signatures made for the proxy's address verify upstream).
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RequestCounts {
  get: number;
  list: number;
  put: number;
  delete: number;
  other: number;
}

export interface CountingProxy {
  endpoint: string;
  counts(): RequestCounts;
  close(): Promise<void>;
}

export async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const target = new URL(upstream);
  const counts: RequestCounts = { get: 0, list: 0, put: 0, delete: 0, other: 0 };
  const server = createServer((req, res) => {
    const method = req.method ?? '';
    if (method === 'GET') counts[/[?&]list-type=2/.test(req.url ?? '') ? 'list' : 'get']++;
    else if (method === 'PUT') counts.put++;
    else if (method === 'DELETE') counts.delete++;
    else counts.other++;
    const out = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
