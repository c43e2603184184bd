/**
 * Which chunk of a file to ask of which source next, when several sources are asked at once
 * (spec 05 §16.6.6). Sources take the lowest chunks nobody was asked for yet; a chunk a source
 * gave back (it lacked it, or was dropped) is asked again first. Once nothing is left to hand
 * out, an idle source may take a chunk another source was asked for long ago and has not
 * answered ("late"), so one stalled source holds up no one: whichever answer comes first is
 * kept. No chunk is asked of more than two sources at once. Pure bookkeeping: no I/O, no timers.
 */

/** One ask of a chunk: who was asked, and when (ms). */
interface Asked<S> {
  source: S;
  at: number;
}

export class ChunkSchedule<S> {
  /** Chunks still to hand out that were never asked, from `#next` up, in order. */
  readonly #fresh: number[];
  #next = 0;
  /** Chunks given back, to be asked again before any fresh one; kept sorted. */
  readonly #again: number[] = [];
  /** Chunks asked and not yet held, with their asks in the order made (oldest first). */
  readonly #asked = new Map<number, Array<Asked<S>>>();
  /** Chunks still missing: not held here. */
  readonly #missing: Set<number>;

  /** `missing`: the chunk numbers not held here, in any order. */
  constructor(missing: Iterable<number>) {
    this.#fresh = [...missing].sort((a, b) => a - b);
    this.#missing = new Set(this.#fresh);
  }

  /** True once every chunk is held. */
  get done(): boolean {
    return this.#missing.size === 0;
  }

  /** How many chunks are still missing. */
  get missing(): number {
    return this.#missing.size;
  }

  /** True when chunks are waiting to be handed out (not counting late ones). */
  get waiting(): boolean {
    return this.#again.length > 0 || this.#next < this.#fresh.length;
  }

  /**
   * Up to `max` chunks for `source` to be asked now: chunks given back first, then fresh ones,
   * lowest first; only when none is left, chunks asked of one other source at or before
   * `lateBefore` and not of this one, oldest ask first.
   */
  take(source: S, max: number, now: number, lateBefore: number): number[] {
    const out: number[] = [];
    while (out.length < max && this.#again.length > 0) {
      const n = this.#again.shift()!;
      if (this.#missing.has(n)) out.push(n);
    }
    while (out.length < max && this.#next < this.#fresh.length) {
      const n = this.#fresh[this.#next++]!;
      if (this.#missing.has(n)) out.push(n);
    }
    if (out.length === 0) {
      for (const [n, asks] of this.#asked) {
        if (out.length >= max) break;
        if (asks.length === 1 && asks[0]!.source !== source && asks[0]!.at <= lateBefore)
          out.push(n);
      }
    }
    for (const n of out) {
      const asks = this.#asked.get(n);
      if (asks) asks.push({ source, at: now });
      else this.#asked.set(n, [{ source, at: now }]);
    }
    return out;
  }

  /**
   * The earliest time at which a chunk asked of a single source, one for which `canSteal` holds,
   * becomes late by the rule of {@link take} (`lateAfter` ms after its ask); `undefined` when
   * none will.
   */
  nextLate(lateAfter: number, canSteal: (asked: S) => boolean): number | undefined {
    let earliest: number | undefined;
    for (const asks of this.#asked.values()) {
      if (asks.length !== 1 || !canSteal(asks[0]!.source)) continue;
      const at = asks[0]!.at + lateAfter;
      if (earliest === undefined || at < earliest) earliest = at;
    }
    return earliest;
  }

  /** Chunk `n` is held now: nobody needs to be asked for it any more. */
  held(n: number): void {
    this.#missing.delete(n);
    this.#asked.delete(n);
  }

  isMissing(n: number): boolean {
    return this.#missing.has(n);
  }

  /**
   * `source` answered for (or will never answer for) the chunks `ns`: they are no longer asked
   * of it. One still missing and asked of nobody else goes back to be handed out again.
   */
  release(source: S, ns: Iterable<number>): void {
    for (const n of ns) {
      const asks = this.#asked.get(n);
      if (!asks) continue;
      const rest = asks.filter((a) => a.source !== source);
      if (rest.length > 0) {
        this.#asked.set(n, rest);
        continue;
      }
      this.#asked.delete(n);
      if (this.#missing.has(n) && !this.#again.includes(n)) {
        let i = this.#again.length;
        while (i > 0 && this.#again[i - 1]! > n) i--;
        this.#again.splice(i, 0, n);
      }
    }
  }

  /** The chunks asked of `source` and not answered yet. */
  askedOf(source: S): number[] {
    const out: number[] = [];
    for (const [n, asks] of this.#asked) if (asks.some((a) => a.source === source)) out.push(n);
    return out;
  }
}
