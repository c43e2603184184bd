/**
 * The spaces a connection shares that are closed here (spec 06 §4.1): for each, the last hello
 * this side sent there, how it stood with the peer, and the peer's last hello. A hello in one
 * is taken without opening it where that is enough: the heartbeat repeats this side's, a peer's
 * level with it needs nothing, and one that differs is answered with where the space closed,
 * or, on the side that starts, waits for a session slot with the space closed.
 */
import { equalBytes } from '../bytes.js';
import { helloOf, type Message } from './messages.js';
import type { PeerSpaceStatus, SyncHost } from './sync-host.js';

type Hello = Extract<Message, { t: 'hello' }>;

/** A shared space closed here: what this side said there last, where it stood, the peer's last hello. */
interface Resting {
  hello: Hello;
  status: PeerSpaceStatus;
  peerHello?: Hello | undefined;
}

/** What the resting spaces need of their connection. */
export interface RestingChannel {
  /** Whether this side starts reconciling. */
  readonly starter: boolean;
  send(message: Message): void;
  /**
   * Takes a session slot in space `id` for this connection, or waits for one: false when it
   * waits (the connection starts the session once it has one). True without slots.
   */
  takeSlot(id: string): boolean;
}

export class RestingSpaces {
  readonly #resting = new Map<string, Resting>();

  constructor(
    private readonly host: SyncHost,
    private readonly channel: RestingChannel,
  ) {}

  has(id: string): boolean {
    return this.#resting.has(id);
  }

  /** How this side stood with the peer in `id` as it closed, and since by the peer's hellos. */
  status(id: string): PeerSpaceStatus | undefined {
    return this.#resting.get(id)?.status;
  }

  /** The peer's last hello in `id`, for the sync that opens it again. */
  peerHello(id: string): Hello | undefined {
    return this.#resting.get(id)?.peerHello;
  }

  /** Space `id` closed here: this side's last hello there, its standing, and the peer's hello. */
  rest(id: string, hello: Hello, status: PeerSpaceStatus, peerHello?: Hello): void {
    this.#resting.set(id, { hello, status, peerHello });
  }

  /**
   * Shared space `id`, closed here, rests from the start: its hello says where it closed, sent
   * now. False when it is not closed here.
   */
  restClosed(id: string, status: PeerSpaceStatus): boolean {
    const hello = this.#closedHello(id);
    if (!hello) return false;
    this.#resting.set(id, { hello, status });
    this.channel.send(hello);
    return true;
  }

  /** Space `id` opened again (or is no longer shared). */
  delete(id: string): void {
    this.#resting.delete(id);
  }

  /**
   * A hello of the peer in resting space `id`, taken without opening the space where that is
   * enough: level with where it closed, there is nothing to do; differing, this side answers
   * with where it closed when the peer starts, or waits for a session slot when this side
   * starts and none is free. The peer's hello is kept for when it opens. True when taken.
   */
  onHello(id: string, m: Hello): boolean {
    const resting = this.#resting.get(id);
    if (!resting) return false;
    if (equalBytes(m.f, resting.hello.f)) {
      resting.status = { ...resting.status, level: true, synced: true };
      return true;
    }
    resting.peerHello = m;
    resting.status = { ...resting.status, level: false, synced: false };
    if (this.channel.starter) return !this.channel.takeSlot(id);
    // A starter saying it is synced: the sync's own answer, which may be to say nothing.
    return m.y !== true && this.sayClosed(id);
  }

  /**
   * Says hello in resting space `id` as it closed here, when it is closed now (so it stands
   * there still: only this node writes it, and a write opens it). False when it is open here.
   */
  sayClosed(id: string): boolean {
    const resting = this.#resting.get(id);
    const hello = resting && this.#closedHello(id);
    if (!hello) return false;
    resting.hello = hello;
    this.channel.send(hello);
    return true;
  }

  /** A hello of where space `id` closed here, while it is closed. */
  #closedHello(id: string): Hello | undefined {
    const closed = this.host.closedHello?.(id);
    return closed && helloOf(id, closed.fingerprint, closed.counts);
  }

  /** Heartbeat: this side's last hello in each resting space, again. */
  repeat(): void {
    for (const { hello } of this.#resting.values()) this.channel.send(hello);
  }
}
