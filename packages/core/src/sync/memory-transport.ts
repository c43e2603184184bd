/**
 * Transports in memory, for tests and for nodes in one process: a pair of connected ends.
 * Delivery is asynchronous and ordered, like a real channel; `delay` holds each message back,
 * so tests can reorder and slow delivery across pairs.
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
  /** When the last message sent will have been delivered, so a shorter delay can't overtake it. */
  #lastDelivery = 0;

  constructor(private readonly options: MemoryTransportOptions) {}

  get closed(): boolean {
    return this.#closed;
  }

  send(message: Uint8Array): void {
    if (this.#closed) throw new MincaError('closed', 'the transport is closed');
    const copy = message.slice();
    const delay =
      typeof this.options.delay === 'function' ? this.options.delay() : (this.options.delay ?? 0);
    const at = Math.max(Date.now() + delay, this.#lastDelivery);
    this.#lastDelivery = at;
    setTimer(() => {
      if (!this.peer.#closed) this.peer.onMessage?.(copy);
    }, at - Date.now());
  }

  close(reason?: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onClose?.(reason);
    // The peer hears of it after what was already sent to it.
    setTimer(() => this.peer.#hangUp(reason), Math.max(0, this.#lastDelivery - Date.now()));
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
