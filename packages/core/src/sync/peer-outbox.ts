/**
 * What a connection sends in bulk waits for room (spec 05 §10.1): a `want` or `pull` of a few
 * bytes asks for up to hundreds of KiB of versions, and a `neg` for a reply of up to a frame,
 * so a peer that asks and does not read would otherwise have this node read its store and hold
 * every answer in the transport's send buffer (300 pulls, 20 KB, made a node hold 158 MiB for
 * a member that stopped reading).
 *
 * Answers are queued here and made one at a time, each only once the transport holds at most
 * {@link OUTPUT_PAUSE_BYTES} not yet sent. The inbox never waits for them: it goes on taking
 * in what the peer sends, so two nodes sending each other much at once can't both stop
 * reading while each waits for the other to read. Pushes (what the side that starts sends
 * unasked) and file chunks wait for the same room where they are made. At most
 * {@link MAX_ANSWERS_WAITING} answers wait, and a transport that holds over
 * {@link OUTPUT_PAUSE_BYTES} for {@link OUTPUT_STALL_MS} ends the connection: a peer that
 * stopped reading is gone or hostile.
 */
import { setTimer } from '../timers.js';
import type { Transport } from './transport.js';

/** Bytes the transport may hold unsent before the next answer or push part waits. */
export const OUTPUT_PAUSE_BYTES = 4 * 1024 * 1024;
/**
 * Answers that may wait at once on a connection: a peer asks at most 4 wants and a pull a
 * collection per space, in at most 64 sessions (§10), so this is far past any honest peer.
 */
export const MAX_ANSWERS_WAITING = 1024;
/** How long the transport may stay full before the connection ends. */
export const OUTPUT_STALL_MS = 60_000;
/**
 * How soon a full transport is first looked at again, and at most how long between looks: a
 * browser's WebSocket tells no drain, so it is polled, each wait twice the one before, so a
 * host with many stalled peers looks at each about once a second.
 */
const ROOM_POLL_MS = 10;
const ROOM_POLL_MAX_MS = 1_000;

/** What the outbox needs of its connection. */
export interface OutboxOwner {
  readonly closed: boolean;
  now(): number;
  /** Ends the connection, with why. */
  close(reason: string): void;
}

export class PeerOutbox {
  readonly #answers: Array<() => Promise<void>> = [];
  #running = false;

  constructor(
    private readonly transport: Transport,
    private readonly owner: OutboxOwner,
  ) {}

  /**
   * Queues an answer to be made once there is room; what it throws ends the connection. Past
   * {@link MAX_ANSWERS_WAITING} the connection ends instead.
   */
  answer(make: () => Promise<void>): void {
    if (this.owner.closed) return;
    // The one being made counts too.
    if (this.#answers.length + (this.#running ? 1 : 0) >= MAX_ANSWERS_WAITING) {
      this.owner.close(
        `the peer went over its budget: more than ${MAX_ANSWERS_WAITING} requests waiting for an answer`,
      );
      return;
    }
    this.#answers.push(make);
    if (!this.#running) void this.#run();
  }

  /**
   * Resolves once the transport holds at most {@link OUTPUT_PAUSE_BYTES} unsent (at once when
   * it can't tell): true, or false once the connection ended, so there is nothing more to
   * send; ends the connection if it stays full for {@link OUTPUT_STALL_MS}.
   */
  room(): Promise<boolean> {
    if (this.#hasRoom()) return Promise.resolve(!this.owner.closed);
    const since = this.owner.now();
    let wait = ROOM_POLL_MS;
    return new Promise((resolve) => {
      const look = () => {
        if (this.#hasRoom()) return resolve(!this.owner.closed);
        if (this.owner.now() - since >= OUTPUT_STALL_MS) {
          this.owner.close(
            `the peer read nothing of ${OUTPUT_PAUSE_BYTES >> 20} MiB sent to it in ${OUTPUT_STALL_MS / 1000} s`,
          );
          return resolve(false);
        }
        setTimer(look, wait);
        wait = Math.min(ROOM_POLL_MAX_MS, wait * 2);
      };
      look();
    });
  }

  /**
   * {@link answer} and {@link room} for one space's sync, while `current` says it is still the
   * space's: once the space closed, its answers waiting are not made (the peer's wants go
   * stale and are asked again, §10) and `room` answers false, so what was being sent stops.
   */
  forSpace(current: () => boolean): {
    answer(make: () => Promise<void>): void;
    room(): Promise<boolean>;
  } {
    return {
      answer: (make) =>
        this.answer(async () => {
          if (!current()) return;
          try {
            await make();
          } catch (error) {
            // A space closed under its answer fails it, not the connection.
            if (current()) throw error;
          }
        }),
      room: async () => (await this.room()) && current(),
    };
  }

  #hasRoom(): boolean {
    return this.owner.closed || (this.transport.buffered ?? 0) <= OUTPUT_PAUSE_BYTES;
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#answers.length > 0 && !this.owner.closed) {
        // The connection may have ended while it waited.
        if (!(await this.room())) break;
        await this.#answers.shift()!();
      }
    } catch (error) {
      this.owner.close(String(error));
    } finally {
      this.#running = false;
      if (this.owner.closed) this.#answers.length = 0;
    }
  }
}
