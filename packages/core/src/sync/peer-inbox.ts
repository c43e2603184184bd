/**
 * A connection's inbox (spec 05 §8, §10.1): frames and the connection's own work are handled one
 * at a time, in order. Each frame counts against the connection's budget until it is handled,
 * and a transport that can pause stops being read while too many bytes wait; the frames next in
 * line are checked ahead ({@link InboxAhead}) meanwhile.
 */
import { type ConnectionBudget, PAUSE_QUEUED_BYTES, RESUME_QUEUED_BYTES } from './budget.js';
import type { Early, InboxAhead } from './inbox-ahead.js';
import type { Transport } from './transport.js';

/** What the inbox needs of its connection. */
export interface InboxOwner {
  readonly closed: boolean;
  /** Handles one frame, with what was done with it ahead of its turn. */
  receive(frame: Uint8Array, early?: Early): Promise<void>;
  /** Ends the connection, with why. */
  close(reason: string): void;
}

export class PeerInbox {
  /** What is queued: each frame and piece of work runs once those before it ended. */
  #queue: Promise<void> = Promise.resolve();
  /** Whether the transport was asked to stop reading, the inbox being full. */
  #paused = false;

  constructor(
    private readonly transport: Transport,
    private readonly budget: ConnectionBudget,
    private readonly ahead: InboxAhead,
    private readonly owner: InboxOwner,
  ) {
    transport.onMessage = (frame) => this.#arrived(frame);
  }

  /** Runs `work` after the frames and work queued before it; what it throws ends the connection. */
  enqueue(work: () => Promise<void>): void {
    this.#queue = this.#queue.then(work).catch((error) => this.owner.close(String(error)));
  }

  #arrived(frame: Uint8Array): void {
    if (this.owner.closed) return;
    try {
      this.budget.received(frame.length);
    } catch (error) {
      this.owner.close((error as Error).message);
      return;
    }
    if (!this.#paused && this.budget.queued > PAUSE_QUEUED_BYTES) {
      this.#paused = true;
      this.transport.pause?.();
    }
    const pending = this.ahead.arrived(frame);
    this.#queue = this.#queue.then(async () => {
      this.ahead.taken();
      try {
        if (!pending.joined) await this.owner.receive(frame, pending.early);
      } finally {
        this.budget.handled(frame.length);
        if (this.#paused && this.budget.queued <= RESUME_QUEUED_BYTES) {
          this.#paused = false;
          if (!this.owner.closed) this.transport.resume?.();
        }
      }
    });
  }
}
