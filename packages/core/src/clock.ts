/**
 * A hybrid logical clock in milliseconds. Each timestamp it gives is later than every one it
 * gave or observed, and otherwise the wall clock: so a version always sorts after what its
 * writer had seen, even when the writer's wall clock is behind. The logical part is folded
 * into the milliseconds (a tick is 1 ms), which keeps timestamps plain integers, as
 * Negentropy's items want.
 */

/** How far ahead of our wall clock an observed timestamp may pull the clock. */
export const MAX_CLOCK_DRIFT_MS = 60 * 60 * 1000;

export class HybridClock {
  #last = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The next timestamp: later than every one given or observed. */
  tick(): number {
    this.#last = Math.max(Math.floor(this.now()), this.#last + 1);
    return this.#last;
  }

  /** The time as this clock reads it now (no earlier than its last timestamp), taking no tick. */
  read(): number {
    return Math.max(Math.floor(this.now()), this.#last);
  }

  /** The latest timestamp {@link observe} takes in now. */
  horizon(): number {
    return this.now() + MAX_CLOCK_DRIFT_MS;
  }

  /**
   * Takes in a timestamp seen on a version. One further ahead than {@link MAX_CLOCK_DRIFT_MS}
   * is ignored, so a peer with a wrong clock can't drag ours into the far future.
   */
  observe(timestamp: number): void {
    if (timestamp > this.#last && timestamp <= this.now() + MAX_CLOCK_DRIFT_MS) {
      this.#last = timestamp;
    }
  }
}
