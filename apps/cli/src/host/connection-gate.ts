/**
 * Who may wait at the door: every TCP connection to a served node is *pending* until its peer
 * has proven its key (the handshake, spec 05 §8). A pending connection is closed once it has
 * waited `handshakeMs`, and past a cap on pending connections, overall or from one address, the
 * oldest is closed to make room for the newcomer, silent ones (nothing said since the upgrade)
 * before those that spoke. A real client finishes its handshake in milliseconds, so a new
 * arrival is served however many idle sockets an attacker holds. Spec 06 §5.
 */
import type { Socket } from 'node:net';

export interface GateLimits {
  /** A connection not through its handshake this long after it opened is closed. */
  handshakeMs: number;
  /** Pending connections at once, from everyone. */
  maxPending: number;
  /** Pending connections at once from one remote address. */
  maxPendingPerAddress: number;
}

export const DEFAULT_HANDSHAKE_MS = 5_000;

export interface GateStats {
  pending: number;
  /** Closed for not finishing the handshake in time. */
  timedOut: number;
  /** Closed to make room under a cap. */
  shed: number;
}

interface Entry {
  socket: Socket;
  address: string;
  at: number;
  /** Whether a WebSocket message came since the upgrade. */
  spoke: boolean;
  /** Set once the connection carries a peer: it is through the handshake once this is true. */
  authenticated?: () => boolean;
}

export class ConnectionGate {
  /** Pending connections, oldest first (a Map keeps insertion order). */
  readonly #pending = new Map<Socket, Entry>();
  readonly #byAddress = new Map<string, Set<Entry>>();
  readonly #sweep: NodeJS.Timeout;
  #timedOut = 0;
  #shed = 0;

  constructor(
    readonly limits: GateLimits,
    private readonly now: () => number = Date.now,
  ) {
    // One timer for every connection: deadlines are kept to a tenth of their length.
    this.#sweep = setInterval(() => this.sweep(), Math.max(50, limits.handshakeMs / 10));
    this.#sweep.unref();
  }

  /** A TCP connection opened: it waits for its handshake, and may make room by closing others. */
  admit(socket: Socket): void {
    const address = socket.remoteAddress ?? '?';
    const entry: Entry = { socket, address, at: this.now(), spoke: false };
    this.#pending.set(socket, entry);
    let same = this.#byAddress.get(address);
    if (!same) this.#byAddress.set(address, (same = new Set()));
    same.add(entry);
    socket.once('close', () => this.#forget(entry));
    if (
      this.#pending.size > this.limits.maxPending ||
      same.size > this.limits.maxPendingPerAddress
    ) {
      // Before shedding anyone, let go of those that finished their handshake since the sweep.
      this.sweep();
      while (
        same.size > this.limits.maxPendingPerAddress &&
        this.#shedOldest(same.values(), entry)
      );
      while (
        this.#pending.size > this.limits.maxPending &&
        this.#shedOldest(this.#pending.values(), entry)
      );
    }
  }

  /** The connection was upgraded and carries a peer; `authenticated` tells when it proved its key. */
  upgraded(socket: Socket, authenticated: () => boolean): void {
    const entry = this.#pending.get(socket);
    if (entry) entry.authenticated = authenticated;
  }

  /** A WebSocket message arrived on the connection: it is not silent. */
  spoke(socket: Socket): void {
    const entry = this.#pending.get(socket);
    if (entry) entry.spoke = true;
  }

  /** Lets go of the authenticated, and closes those past their deadline. */
  sweep(): void {
    const now = this.now();
    for (const entry of [...this.#pending.values()]) {
      if (entry.authenticated?.()) this.#forget(entry);
      else if (now - entry.at >= this.limits.handshakeMs) {
        this.#timedOut++;
        this.#close(entry);
      }
    }
  }

  stats(): GateStats {
    return { pending: this.#pending.size, timedOut: this.#timedOut, shed: this.#shed };
  }

  /** Stops the timer; connections stay as they are. */
  close(): void {
    clearInterval(this.#sweep);
    this.#pending.clear();
    this.#byAddress.clear();
  }

  /**
   * Closes the oldest silent entry of `entries`, else the oldest, never `newcomer`: a new
   * arrival has had no time to speak. False when there was nobody else to close.
   */
  #shedOldest(entries: Iterable<Entry>, newcomer: Entry): boolean {
    let oldest: Entry | undefined;
    for (const entry of entries) {
      if (entry === newcomer) continue;
      oldest ??= entry;
      if (!entry.spoke) {
        oldest = entry;
        break;
      }
    }
    if (!oldest) return false;
    this.#shed++;
    this.#close(oldest);
    return true;
  }

  #close(entry: Entry): void {
    this.#forget(entry);
    entry.socket.destroy();
  }

  #forget(entry: Entry): void {
    if (this.#pending.get(entry.socket) !== entry) return;
    this.#pending.delete(entry.socket);
    const same = this.#byAddress.get(entry.address);
    same?.delete(entry);
    if (same?.size === 0) this.#byAddress.delete(entry.address);
  }
}
