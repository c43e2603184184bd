/**
 * When each open space was last used and whether something uses it now (spec 06 §4.1): what
 * decides which spaces close for being idle, and which closes first when too many are open.
 */

/** How long a space stays open unused, and how many stay open at most (spec 06 §4.1). */
export interface OpenSpacesOptions {
  /**
   * A space nothing used for this long closes, ms (5 minutes by default); calls and peers open
   * it again. `Infinity` keeps spaces open until the node closes.
   */
  idleMs?: number;
  /**
   * Spaces open at once (1,000 by default): past it, the least recently used one not in use
   * closes. Spaces in use (a call under way, a listener, a sync mid-session) never close for it.
   */
  max?: number;
}

export const DEFAULT_IDLE_MS = 5 * 60_000;
export const DEFAULT_MAX_OPEN = 1_000;
/** Idle spaces are looked for this often at most, ms (and at least every quarter of the limit). */
const SWEEP_MAX_MS = 30_000;
const SWEEP_MIN_MS = 250;

/** The sweep's period for idle limit `idleMs`. */
export function sweepPeriod(idleMs: number): number {
  return Math.max(SWEEP_MIN_MS, Math.min(SWEEP_MAX_MS, Math.floor(idleMs / 4)));
}

/** Checks and fills in {@link OpenSpacesOptions}. */
export function openSpacesLimits(options: OpenSpacesOptions = {}): Required<OpenSpacesOptions> {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const max = options.max ?? DEFAULT_MAX_OPEN;
  if (!(idleMs > 0)) throw new TypeError('openSpaces.idleMs must be a positive number of ms');
  if (!Number.isInteger(max) || max < 1)
    throw new TypeError('openSpaces.max must be a positive integer');
  return { idleMs, max };
}

/**
 * Per open space: when it was last used, and the uses under way (calls, listeners). A Map in
 * order of last use, so the least recently used comes first.
 */
export class SpaceUse {
  readonly #last = new Map<string, number>();
  readonly #uses = new Map<string, number>();
  /** The id last in `#last`: used again, it stays last, so only its time changes. */
  #latest: string | undefined;

  constructor(private readonly now: () => number) {}

  /** `id` was used just now. */
  touch(id: string): void {
    // A call touches its space three times (opening, starting, ending): a Map deleted from and
    // added to each time fills with holes it then compacts.
    if (id !== this.#latest) {
      this.#last.delete(id);
      this.#latest = id;
    }
    this.#last.set(id, this.now());
  }

  /** A use of `id` begins; the returned function ends it (once). */
  begin(id: string): () => void {
    this.#uses.set(id, (this.#uses.get(id) ?? 0) + 1);
    this.touch(id);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const n = (this.#uses.get(id) ?? 1) - 1;
      if (n <= 0) this.#uses.delete(id);
      else this.#uses.set(id, n);
      this.touch(id);
    };
  }

  /** A use of `id` is under way. */
  inUse(id: string): boolean {
    return this.#uses.has(id);
  }

  /** Ms since `id` was last used. */
  idleFor(id: string): number {
    const last = this.#last.get(id);
    return last === undefined ? Number.POSITIVE_INFINITY : this.now() - last;
  }

  /** Ids in order of last use, least recent first. */
  leastRecent(): IterableIterator<string> {
    return this.#last.keys();
  }

  /** `id` closed: its time goes (its uses stay, if any are under way, for its next opening). */
  closed(id: string): void {
    this.#last.delete(id);
    if (this.#latest === id) this.#latest = undefined;
  }
}
