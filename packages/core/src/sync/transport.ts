/**
 * The transport contract: an ordered, reliable channel of binary messages between two nodes.
 * Sync runs over any of them — an in-memory pair, a MessagePort, a WebSocket — and never sees
 * which. Platform transports live beside their platform and are passed in.
 */

export interface Transport {
  /** Sends one message. Throws `closed` after the transport closed. */
  send(message: Uint8Array): void;
  /** Called with each message received, in order. Set once, before messages flow. */
  onMessage: ((message: Uint8Array) => void) | undefined;
  /** Called once when the transport closes, from either side, with a reason when known. */
  onClose: ((reason?: string) => void) | undefined;
  /**
   * Stops delivering messages until {@link resume}, optional: flow control, so a peer sending
   * faster than this side handles waits in the network and its own buffers rather than in this
   * side's memory. A few messages already read may still be delivered after it.
   */
  pause?(): void;
  /** Delivers messages again after {@link pause}. */
  resume?(): void;
  /**
   * Bytes handed to {@link send} and not yet passed on to the network or the peer, optional:
   * where it is told, answers wait while it is large (spec 05 §10.1), so a peer that asks and
   * does not read can't make this side hold everything it asked for.
   */
  readonly buffered?: number;
  /** Closes the transport; the peer's `onClose` is told `reason`. */
  close(reason?: string): void;
  readonly closed: boolean;
}
