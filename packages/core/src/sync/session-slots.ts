/**
 * How many reconciliation sessions a node runs at once, over all its connections (spec 06 §4.1
 * "Sessions at once"). A session needs its space open from its first message to its last want
 * answered; started in more spaces than may stay open, each is cut as its space closes to make
 * room for the next, starts again, and is cut again: a host keeping 4 spaces open never took in
 * 12 new ones of 2,000 versions. So a session starts only with a slot, and the rest wait.
 *
 * One connection holds at most {@link SESSIONS_PER_CONNECTION} slots, so a peer that leaves its
 * sessions unanswered (each holds its slot until it goes stale) cannot take them all; the
 * connections waiting take turns, each one's sessions in the order they asked.
 */

/** Slots one connection holds at most. */
export const SESSIONS_PER_CONNECTION = 64;

/** The slots of one node's sessions; a session is known by its connection and space. */
export class SessionSlots {
  /** Spaces running a session (or answering its wants) now, by connection. */
  readonly #running = new Map<number, Set<string>>();
  #count = 0;
  /**
   * Spaces waiting for a slot, by connection: connections in turn (one that just got a slot
   * goes last), each one's spaces in order, each with what starts it once it has one.
   */
  readonly #waiting = new Map<number, Map<string, () => void>>();

  /**
   * @param limit Sessions at once: at least 1.
   * @param perConnection Slots one connection holds at most.
   */
  constructor(
    readonly limit: number,
    readonly perConnection = SESSIONS_PER_CONNECTION,
  ) {}

  /** Sessions running now. */
  get running(): number {
    return this.#count;
  }

  /** Sessions waiting for a slot now. */
  get waiting(): number {
    let waiting = 0;
    for (const queue of this.#waiting.values()) waiting += queue.size;
    return waiting;
  }

  /**
   * Whether connection `peer` may run a session in `space` now, taking a slot if it has none.
   * If not, it waits for one (keeping its place if it waited already) and `start` is called
   * once it has it.
   */
  take(peer: number, space: string, start: () => void): boolean {
    const running = this.#running.get(peer);
    if (running?.has(space)) return true;
    // Any slot free now is one no connection waiting may take (each is at its most).
    if (!this.#waiting.has(peer) && this.#mayRun(peer)) {
      this.#run(peer, space);
      return true;
    }
    let queue = this.#waiting.get(peer);
    if (!queue) this.#waiting.set(peer, (queue = new Map()));
    if (!queue.has(space)) queue.set(space, start);
    return false;
  }

  /** The session in `space` and its wants are over: its slot, if it has one, goes to the next waiting. */
  ended(peer: number, space: string): void {
    const running = this.#running.get(peer);
    if (!running?.delete(space)) return;
    this.#count--;
    if (running.size === 0) this.#running.delete(peer);
    this.#next();
  }

  /** `space` is no longer shared on connection `peer`, or it ended: forgotten, waiting or not. */
  drop(peer: number, space: string): void {
    const queue = this.#waiting.get(peer);
    if (queue?.delete(space) && queue.size === 0) this.#waiting.delete(peer);
    this.ended(peer, space);
  }

  /** Connection `peer` ended: all it held and waited for is let go of. */
  dropConnection(peer: number): void {
    this.#waiting.delete(peer);
    this.#count -= this.#running.get(peer)?.size ?? 0;
    this.#running.delete(peer);
    this.#next();
  }

  #mayRun(peer: number): boolean {
    return this.#count < this.limit && (this.#running.get(peer)?.size ?? 0) < this.perConnection;
  }

  #run(peer: number, space: string): void {
    let running = this.#running.get(peer);
    if (!running) this.#running.set(peer, (running = new Set()));
    running.add(space);
    this.#count++;
  }

  /** Gives free slots to the connections waiting, in turn. */
  #next(): void {
    while (this.#count < this.limit) {
      const peer = [...this.#waiting.keys()].find((p) => this.#mayRun(p));
      if (peer === undefined) return;
      const queue = this.#waiting.get(peer)!;
      const [space, start] = queue.entries().next().value!;
      queue.delete(space);
      // Its turn taken: it goes last among the connections waiting.
      this.#waiting.delete(peer);
      if (queue.size > 0) this.#waiting.set(peer, queue);
      this.#run(peer, space);
      start();
    }
  }
}
