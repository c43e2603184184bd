// A fault-injecting HTTP proxy on 127.0.0.1 in front of s3rver. Each request takes the next
// scripted fault (or the plan's choice), and every request is recorded for the tests to read.
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { type SigV4Expectation, sigV4Problem } from './sigv4-verifier.js';

export type Fault =
  /** Answers this status itself, with an S3 error body, without asking upstream. */
  | { kind: 'status'; status: number; retryAfter?: string; code?: string; location?: string }
  /** Destroys the connection before answering anything. */
  | { kind: 'reset-before' }
  /** Forwards upstream, then sends the answer's head and half its body and destroys the connection. */
  | { kind: 'reset-mid' }
  /** Forwards after `ms` (bounded by the test). */
  | { kind: 'delay'; ms: number }
  /** Forwards, but answers with this body (and status) instead of upstream's. */
  | {
      kind: 'replace';
      status?: number;
      body: string | Uint8Array;
      headers?: Record<string, string>;
    };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  fault: Fault | undefined;
  /** Body bytes received from the client. */
  bytesIn: number;
  /** Body bytes sent back to the client, once answered (0 before). */
  bytesOut: number;
}

export interface FaultProxyOptions {
  upstream: string;
  /** When given, each request's SigV4 signature is recomputed; a mismatch is answered 403. */
  verify?: SigV4Expectation;
}

export interface FaultProxy {
  endpoint: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Queues faults for the next requests, one each. */
  inject(...faults: Fault[]): void;
  /** Chooses a fault for requests the queue has none for; `undefined` forwards untouched. */
  plan: ((request: IncomingMessage, index: number) => Fault | undefined) | undefined;
  close(): Promise<void>;
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const upstream = new URL(options.upstream);
  const queue: Fault[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const forward = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>(
      (resolve, reject) => {
        const out = httpRequest(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: req.headers,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 502,
                headers: res.headers,
                body: Buffer.concat(chunks),
              }),
            );
            res.on('error', reject);
          },
        );
        out.on('error', reject);
        out.end(body);
      },
    );

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const index = requests.length;
    const fault = queue.shift() ?? proxy.plan?.(req, index);
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      fault,
      bytesIn: body.length,
      bytesOut: 0,
    };
    requests.push(recorded);

    if (options.verify) {
      const problem = sigV4Problem(
        { method: req.method ?? '', url: req.url ?? '', headers: req.headers },
        options.verify,
      );
      if (problem) return sendError(res, 403, 'SignatureDoesNotMatch');
    }
    switch (fault?.kind) {
      case 'status':
        if (fault.retryAfter !== undefined) res.setHeader('retry-after', fault.retryAfter);
        if (fault.location !== undefined) res.setHeader('location', fault.location);
        return sendError(res, fault.status, fault.code ?? 'InjectedFault');
      case 'reset-before':
        req.socket.destroy();
        return;
      case 'delay':
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            timers.delete(timer);
            resolve();
          }, fault.ms);
          timers.add(timer);
        });
        if (req.socket.destroyed) return;
        break;
    }
    const answer = await forward(req, body);
    if (fault?.kind === 'reset-mid') {
      // Raw bytes: a full head promising the whole body, then half of it, then the cut.
      const range = answer.headers['content-range'];
      const head =
        `HTTP/1.1 ${answer.status} X\r\ncontent-length: ${answer.body.length}\r\n` +
        (range ? `content-range: ${range}\r\n` : '') +
        `content-type: ${answer.headers['content-type'] ?? 'application/octet-stream'}\r\n\r\n`;
      const cut = answer.body.length
        ? Buffer.concat([Buffer.from(head), answer.body.subarray(0, answer.body.length >> 1)])
        : Buffer.from(head.slice(0, head.length >> 1));
      req.socket.write(cut, () => req.socket.destroy());
      return;
    }
    if (fault?.kind === 'replace') {
      res.writeHead(fault.status ?? 200, { 'content-type': 'application/xml', ...fault.headers });
      res.end(fault.body);
      return;
    }
    const headers = { ...answer.headers };
    delete headers['transfer-encoding'];
    delete headers.connection;
    headers['content-length'] = String(answer.body.length);
    recorded.bytesOut = answer.body.length;
    res.writeHead(answer.status, headers);
    res.end(answer.body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 502, 'ProxyError');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const proxy: FaultProxy = {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    inject: (...faults) => queue.push(...faults),
    plan: undefined,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}

function sendError(res: ServerResponse, status: number, code: string): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>injected</Message></Error>`,
  );
}
