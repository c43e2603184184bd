/**
 * Which versions a collection holds, by id alone, in flat arrays: an open-addressing table from
 * an id's first 8 bytes to its timestamp. A hit is only a candidate — two ids may share 8 bytes
 * — so the store confirms it against the collection's sorted set, which holds the whole id, at
 * that timestamp. About 16–32 bytes per version, where a map of hex strings takes over 100.
 */

/** A slot's timestamp high half when empty: timestamps stay below 2^53, so it is never real. */
const EMPTY = 0xffff_ffff;
const MIN_SLOTS = 16;

export class IdTable {
  /** Per slot: id bytes 0–3 and 4–7 (as read big-endian), timestamp high and low halves. */
  #slots = new Uint32Array(4 * MIN_SLOTS).fill(EMPTY);
  #mask = MIN_SLOTS - 1;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds id `ids[at .. at+32)` at timestamp (hi, lo). The caller adds each version once. */
  add(ids: Uint8Array, at: number, hi: number, lo: number): void {
    if (2 * (this.#size + 1) > this.#mask + 1) this.#grow();
    this.#put(word(ids, at), word(ids, at + 4), hi, lo);
    this.#size++;
  }

  /**
   * Calls `candidate(hi, lo)` for each timestamp held under an id whose first 8 bytes are the
   * big-endian words `a` and `b`, until one returns true.
   */
  candidates(a: number, b: number, candidate: (hi: number, lo: number) => boolean): boolean {
    const slots = this.#slots;
    for (let i = mix(a, b) & this.#mask; ; i = (i + 1) & this.#mask) {
      const s = 4 * i;
      if (slots[s + 2] === EMPTY) return false;
      if (slots[s] === a && slots[s + 1] === b && candidate(slots[s + 2]!, slots[s + 3]!))
        return true;
    }
  }

  #put(a: number, b: number, hi: number, lo: number): void {
    const slots = this.#slots;
    let i = mix(a, b) & this.#mask;
    while (slots[4 * i + 2] !== EMPTY) i = (i + 1) & this.#mask;
    const s = 4 * i;
    slots[s] = a;
    slots[s + 1] = b;
    slots[s + 2] = hi;
    slots[s + 3] = lo;
  }

  #grow(): void {
    const old = this.#slots;
    const count = 2 * (this.#mask + 1);
    this.#slots = new Uint32Array(4 * count).fill(EMPTY);
    this.#mask = count - 1;
    for (let s = 0; s < old.length; s += 4)
      if (old[s + 2] !== EMPTY) this.#put(old[s]!, old[s + 1]!, old[s + 2]!, old[s + 3]!);
  }
}

function word(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0
  );
}

/** Ids are hashes, so their bytes are spread already: a cheap mix of both words will do. */
function mix(a: number, b: number): number {
  return (Math.imul(a ^ (b >>> 15), 0x2c1b3c6d) ^ b) >>> 0;
}
