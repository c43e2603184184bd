/**
 * A transport over a WebSocket: the browser's global, or `ws`'s in Node — both fit
 * {@link WebSocketLike}, so core needs neither. Messages are binary frames.
 */
import { MincaError } from '../errors.js';
import { clearTimer, setTimer } from '../timers.js';
import type { Transport } from './transport.js';

/** The part of a WebSocket this uses (browser `WebSocket` and `ws` both have it). */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  /** Bytes sent and not yet passed to the network (both have it; a stand-in may not). */
  readonly bufferedAmount?: number;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code?: number; reason?: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  /** Stops reading from the connection (Node's `ws`; a browser's WebSocket has none). */
  pause?(): void;
  resume?(): void;
}

/**
 * The compression minca asks of a WebSocket (permessage-deflate, RFC 7692), as `ws` takes it in
 * `perMessageDeflate`, on its server and its client alike. Negotiated at the upgrade, so a peer
 * without it connects as ever; browsers offer it on their own.
 *
 * A sync moves versions in messages of up to 128 KiB whose fields repeat (the space, the author,
 * a batch's upper path hashes): an initial sync's versions take a third (batch-signed) to two
 * thirds (signed each) of their bytes on the wire, for a few µs of CPU a version (spec 05 §8).
 * Messages under 32 KiB (live traffic, short catch-ups) are sent as they are, sparing them the
 * wait for zlib's threads. Level 1, a 4 KiB window and no context kept between messages: a
 * connection that compressed holds about 90 KiB of zlib state, one that never did holds none;
 * a larger window saved 2% more. `ws` checks a message's size after inflating it against its
 * `maxPayload`, so a small frame can't make a large one.
 *
 * @example
 * ```ts
 * new WebSocketServer({ port, maxPayload: 4 << 20, perMessageDeflate: WEBSOCKET_DEFLATE });
 * ```
 */
export const WEBSOCKET_DEFLATE = Object.freeze({
  threshold: 32 * 1024,
  zlibDeflateOptions: Object.freeze({ level: 1, memLevel: 7 }),
  serverMaxWindowBits: 12,
  clientMaxWindowBits: 12,
  serverNoContextTakeover: true,
  clientNoContextTakeover: true,
});

const OPEN = 1;
/** WebSocket close reasons are at most 123 bytes. */
const MAX_REASON = 120;

function toBytes(data: unknown): Uint8Array | undefined {
  if (data instanceof Uint8Array) return data; // ws gives a Buffer, a Uint8Array
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (Array.isArray(data)) {
    // ws may split a message into fragments.
    const parts = data as Uint8Array[];
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
  return undefined;
}

/**
 * Wraps a socket that is open or opening; what is sent before it opens waits for it. Wrap it in
 * the turn it was made (or accepted, in a server's `connection` handler), not after awaiting its
 * opening: a socket hands over what arrives only to the listeners it has, and a peer says `hi`
 * the moment the connection opens, so a `hi` that came before the transport listened is lost
 * and the handshake fails.
 */
export function createWebSocketTransport(socket: WebSocketLike): Transport {
  let closed = false;
  const queue: Uint8Array[] = [];
  let queuedBytes = 0;
  socket.binaryType = 'arraybuffer';
  const transport: Transport = {
    onMessage: undefined,
    onClose: undefined,
    get closed() {
      return closed;
    },
    get buffered() {
      return (socket.bufferedAmount ?? 0) + queuedBytes;
    },
    send(message) {
      if (closed) throw new MincaError('closed', 'the transport is closed');
      if (socket.readyState === OPEN) socket.send(message);
      else {
        queue.push(message.slice());
        queuedBytes += message.length;
      }
    },
    // Where the socket can stop reading, TCP's own flow control holds the sender back.
    pause() {
      socket.pause?.();
    },
    resume() {
      socket.resume?.();
    },
    close(reason) {
      if (closed) return;
      finish(reason);
      socket.close(1000, (reason ?? '').slice(0, MAX_REASON));
    },
  };
  const finish = (reason?: string) => {
    if (closed) return;
    closed = true;
    transport.onClose?.(reason);
  };
  socket.onopen = () => {
    queuedBytes = 0;
    for (const message of queue.splice(0)) socket.send(message);
  };
  socket.onmessage = ({ data }) => {
    const bytes = toBytes(data);
    // A text frame is not part of the protocol: the peer is broken.
    if (bytes) transport.onMessage?.(bytes);
    else transport.close('text frames are not part of the protocol');
  };
  socket.onclose = ({ reason }) => finish(reason || 'the connection closed');
  socket.onerror = () => finish('the connection failed');
  return transport;
}

export interface ReconnectOptions {
  /** First wait after a lost connection, ms. Doubles each failure up to `maxDelayMs`. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** A random factor in [0.5, 1) by default, so peers don't reconnect in step. */
  random?: () => number;
}

/**
 * Keeps a connection up: `open()` makes a socket, `use(transport)` starts syncing over it, and
 * when it closes it is opened again after a backoff that resets once a connection lasted.
 */
export function keepConnected(
  open: () => WebSocketLike,
  use: (transport: Transport) => void,
  options: ReconnectOptions = {},
): { close(): void } {
  return keepConnectedToAny(['-'], () => open(), use, { ...options, openTimeoutMs: 0 });
}

export interface FailoverOptions extends ReconnectOptions {
  /** The index in `urls` tried first; 0 by default. */
  first?: number;
  /** A socket not open this long after it was made is given up, ms; 0 never. 10,000 by default. */
  openTimeoutMs?: number;
}

/** A connection kept up to one of several addresses. */
export interface Failover {
  /** The address in use now or being tried. */
  current(): string;
  close(): void;
}

/**
 * Keeps a connection up to one of several addresses, such as the hosts of a fleet (spec 06 §6),
 * any of which serves the same spaces: `open(url)` makes a socket, `use(transport, url)` starts
 * syncing over it. When a connection closes, or fails to open within `openTimeoutMs`, the next
 * address in turn is tried, after a backoff that doubles with each failure in a row, from
 * `minDelayMs` to `maxDelayMs`, times a random factor, and resets once a connection opened.
 */
export function keepConnectedToAny(
  urls: readonly string[],
  open: (url: string) => WebSocketLike,
  use: (transport: Transport, url: string) => void,
  options: FailoverOptions = {},
): Failover {
  if (!Array.isArray(urls) || urls.length === 0) throw new TypeError('give at least one address');
  const list = [...urls];
  const min = options.minDelayMs ?? 500;
  const max = options.maxDelayMs ?? 30_000;
  const random = options.random ?? Math.random;
  const openTimeout = options.openTimeoutMs ?? 10_000;
  let at = Math.abs(Math.trunc(options.first ?? 0)) % list.length;
  let failures = 0;
  let stopped = false;
  let timer: unknown;
  let current: Transport | undefined;
  const connect = () => {
    if (stopped) return;
    const url = list[at]!;
    const socket = open(url);
    const transport = createWebSocketTransport(socket);
    const opened = socket.onopen!;
    // A host that does not answer (gone from the network) is given up, not waited on.
    const giveUp =
      openTimeout > 0
        ? setTimer(() => {
            if (socket.readyState !== OPEN) transport.close('the connection did not open in time');
          }, openTimeout)
        : undefined;
    socket.onopen = (event) => {
      if (giveUp !== undefined) clearTimer(giveUp);
      failures = 0;
      opened(event);
    };
    current = transport;
    use(transport, url);
    const closed = transport.onClose;
    transport.onClose = (reason) => {
      if (giveUp !== undefined) clearTimer(giveUp);
      closed?.(reason);
      if (stopped) return;
      at = (at + 1) % list.length;
      const wait = Math.min(max, min * 2 ** failures++) * (0.5 + random() / 2);
      timer = setTimer(connect, wait);
    };
  };
  connect();
  return {
    current: () => list[at]!,
    close() {
      stopped = true;
      if (timer !== undefined) clearTimer(timer);
      current?.close('closed');
    },
  };
}
