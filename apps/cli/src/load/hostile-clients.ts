/**
 * Hostile clients for the soak run, each one of three kinds, each coming back whenever the host
 * closes it: `random` sends frames of random bytes, never a handshake; `flood` handshakes with a
 * throwaway key and then, every second, names thousands of spaces with access proofs for
 * others and says hello in spaces it doesn't share; `silent` holds upgraded sockets that never
 * speak. They count what they did and how often the host cut them off.
 */
import { randomBytes } from 'node:crypto';
import { decodeStrict, encodeCbor, SigningKey } from '@minca/core';
import { WebSocket } from 'ws';

export type HostileKind = 'random' | 'flood' | 'silent';

export interface HostileOptions {
  /** Spaces one flood message names, and access proofs it carries for other spaces. */
  floodNames: number;
  floodProofs: number;
  /** Sockets each silent client holds. */
  silentSockets: number;
}

export interface HostileStats {
  kind: HostileKind;
  connections: number;
  /** Closed by the host (not by us). */
  cutOff: number;
  framesSent: number;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const spaceId = () => Array.from(randomBytes(26), (b) => BASE32[b & 31]).join('');
const bytes = (n: number) => new Uint8Array(randomBytes(n));

export class HostileClient {
  readonly stats: HostileStats;
  readonly #sockets = new Set<WebSocket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopped = false;

  constructor(
    readonly kind: HostileKind,
    private readonly url: string,
    private readonly options: HostileOptions,
  ) {
    this.stats = { kind, connections: 0, cutOff: 0, framesSent: 0 };
  }

  start(): void {
    const n = this.kind === 'silent' ? this.options.silentSockets : 1;
    for (let i = 0; i < n; i++) this.#open();
  }

  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    for (const socket of this.#sockets) socket.terminate();
  }

  #later(fn: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
  }

  #every(fn: () => void, ms: number): NodeJS.Timeout {
    const timer = setInterval(fn, ms);
    this.#timers.add(timer);
    return timer;
  }

  #open(): void {
    if (this.#stopped) return;
    const socket = new WebSocket(this.url, { maxPayload: 4 * 1024 * 1024 });
    this.#sockets.add(socket);
    let ticking: NodeJS.Timeout | undefined;
    socket.on('error', () => undefined);
    socket.on('open', () => {
      this.stats.connections++;
      if (this.kind === 'random') ticking = this.#every(() => this.#random(socket), 100);
      if (this.kind === 'flood')
        this.#handshake(socket, () => {
          ticking = this.#every(() => this.#flood(socket), 1_000);
        });
    });
    socket.on('close', () => {
      this.#sockets.delete(socket);
      if (ticking) {
        clearInterval(ticking);
        this.#timers.delete(ticking);
      }
      if (this.#stopped) return;
      this.stats.cutOff++;
      this.#later(() => this.#open(), 200);
    });
  }

  #send(socket: WebSocket, frame: Uint8Array): void {
    if (socket.readyState !== WebSocket.OPEN) return;
    socket.send(frame);
    this.stats.framesSent++;
  }

  #random(socket: WebSocket): void {
    this.#send(socket, bytes(1 + Math.floor(Math.random() * 64 * 1024)));
  }

  /** Says hi as a throwaway key and signs the host's nonce; `then` once the host named its spaces. */
  #handshake(socket: WebSocket, then: () => void): void {
    const key = SigningKey.generate();
    const nonce = bytes(32);
    socket.on('message', async (data: Buffer) => {
      let m: { t?: string; d?: string; n?: Uint8Array };
      try {
        m = decodeStrict(new Uint8Array(data), { maxBytes: 4 << 20, maxDepth: 3 }) as typeof m;
      } catch {
        return;
      }
      if (m.t === 'hi' && m.d && m.n) {
        const g = await key.sign(encodeCbor(['minca/handshake/v1', key.did, m.d, m.n, nonce]));
        this.#send(socket, encodeCbor({ t: 'auth', g }));
      }
      if (m.t === 'spaces') then();
    });
    this.#send(socket, encodeCbor({ t: 'hi', v: 1, d: key.did, n: nonce }));
  }

  #flood(socket: WebSocket): void {
    const access = SigningKey.generate().did;
    const names = Array.from({ length: this.options.floodNames }, spaceId);
    const proofs = Array.from({ length: this.options.floodProofs }, () => [
      spaceId(),
      access,
      bytes(64),
    ]);
    this.#send(socket, encodeCbor({ t: 'spaces', s: names, p: proofs } as never));
    for (let i = 0; i < 50; i++) {
      this.#send(
        socket,
        encodeCbor({ t: 'hello', s: spaceId(), f: bytes(16), c: [['app.msg', i]] } as never),
      );
    }
  }
}

/** Starts `count` hostile clients against `url`, their kinds in turn. */
export function startHostile(count: number, url: string, options: HostileOptions): HostileClient[] {
  const kinds: HostileKind[] = ['random', 'flood', 'silent'];
  const clients = Array.from(
    { length: count },
    (_, i) => new HostileClient(kinds[i % kinds.length]!, url, options),
  );
  for (const client of clients) client.start();
  return clients;
}
