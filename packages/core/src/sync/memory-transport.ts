/**
 * Transports in memory, for tests and for nodes in one process: a pair of connected ends.
 * Delivery is asynchronous and ordered, like a real channel; `delay` holds each message back,
 * so tests can reorder and slow delivery across pairs. An end that pauses reads nothing until it
 * resumes: what its peer sends meanwhile waits on the peer's side.
 */
import { MincaError } from '../errors.js';
import { setTimer } from '../timers.js';
import type { Transport } from './transport.js';

export interface MemoryTransportOptions {
  /** Ms to hold each message back; a function may vary it per message (order is kept). */
  delay?: number | (() => number);
}

class MemoryEnd implements Transport {
  onMessage: ((message: Uint8Array) => void) | undefined;
  onClose: ((reason?: string) => void) | undefined;
  peer!: MemoryEnd;
  #closed = false;
  /** What is on its way to the peer, in order, each with when it may arrive. */
  readonly #inFlight: Array<{ at: number; bytes: number; deliver: () => void; hangUp?: true }> = [];
  /** Bytes of the messages in {@link #inFlight}. */
  #inFlightBytes = 0;
  #draining = false;
  /** Whether this end stopped reading: its peer's messages wait on the peer's side. */
  #paused = false;

  constructor(private readonly options: MemoryTransportOptions) {}

  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes sent and not yet read by the peer: they wait here while it is paused. */
  get buffered(): number {
    return this.#inFlightBytes;
  }

  send(message: Uint8Array): void {
    if (this.#closed) throw new MincaError('closed', 'the transport is closed');
    const copy = message.slice();
    this.#enqueue(copy.length, () => {
      if (!this.peer.#closed) this.peer.onMessage?.(copy);
    });
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    if (!this.peer.#draining) this.peer.#drain();
  }

  close(reason?: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onClose?.(reason);
    // The peer hears of it after what was already sent to it.
    this.#enqueue(0, () => this.peer.#hangUp(reason), true);
  }

  /** One timer at a time drains the queue, so messages arrive in the order they were sent. */
  #enqueue(bytes: number, deliver: () => void, hangUp?: true): void {
    const delay =
      typeof this.options.delay === 'function' ? this.options.delay() : (this.options.delay ?? 0);
    this.#inFlight.push({ at: Date.now() + delay, bytes, deliver, ...(hangUp ? { hangUp } : {}) });
    this.#inFlightBytes += bytes;
    if (!this.#draining) this.#drain();
  }

  #drain(): void {
    const next = this.#inFlight[0];
    // A paused peer reads nothing: what is sent waits here, as it would in the network.
    if (!next || this.peer.#paused) {
      this.#draining = false;
      return;
    }
    this.#draining = true;
    setTimer(
      () => {
        // Every message due goes in this turn, as a socket hands over all it has read: a
        // timer for each cost a millisecond of wall time a message (the timers' least), so
        // two nodes exchanging a thousand messages waited seconds with their CPU idle.
        const now = Date.now();
        const queued = this.#inFlight.length;
        let delivered = 0;
        try {
          while (delivered < queued && !this.peer.#paused) {
            const message = this.#inFlight[delivered]!;
            // The hang-up comes in a turn of its own, as a socket's close event does: the peer
            // gets to handle what came before it.
            if (message.at > now || (message.hangUp && delivered > 0)) break;
            delivered++;
            this.#inFlightBytes -= message.bytes;
            message.deliver();
          }
        } finally {
          this.#inFlight.splice(0, delivered);
        }
        this.#drain();
      },
      Math.max(0, next.at - Date.now()),
    );
  }

  #hangUp(reason?: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onClose?.(reason);
  }
}

/** Two connected transports. */
export function createMemoryTransportPair(
  options: MemoryTransportOptions = {},
): [Transport, Transport] {
  const a = new MemoryEnd(options);
  const b = new MemoryEnd(options);
  a.peer = b;
  b.peer = a;
  return [a, b];
}
