/** A growing output buffer for one Negentropy message, with the varint and bound codings. */
import { INF_HALF } from './u64.js';

const TWO32 = 0x1_0000_0000;

export class Writer {
  #buf: Uint8Array;
  length = 0;
  /** Timestamp of the last bound written: the base of the next delta (Negentropy §3). */
  #lastHi = 0;
  #lastLo = 0;
  readonly #groups = new Uint8Array(10);

  constructor(capacity = 512) {
    this.#buf = new Uint8Array(capacity);
  }

  #room(extra: number): Uint8Array {
    const need = this.length + extra;
    if (need > this.#buf.length) {
      const next = new Uint8Array(Math.max(need, this.#buf.length * 2));
      next.set(this.#buf.subarray(0, this.length));
      this.#buf = next;
    }
    return this.#buf;
  }

  byte(b: number): void {
    this.#room(1)[this.length++] = b;
  }

  /** Appends `src[start, end)`. */
  copy(src: Uint8Array, start: number, end: number): void {
    this.#room(end - start).set(src.subarray(start, end), this.length);
    this.length += end - start;
  }

  /** Writes a varint: base 128, most significant group first (Negentropy §2). */
  varint64(hi: number, lo: number): void {
    const groups = this.#groups;
    let n = 0;
    do {
      groups[n++] = lo & 0x7f;
      lo = ((lo >>> 7) | ((hi & 0x7f) << 25)) >>> 0;
      hi >>>= 7;
    } while (hi !== 0 || lo !== 0);
    const buf = this.#room(n);
    while (n > 1) buf[this.length++] = groups[--n]! | 0x80;
    buf[this.length++] = groups[0]!;
  }

  /** Writes a varint of a safe non-negative integer. */
  varint(n: number): void {
    if (n < 0x80) this.byte(n);
    else this.varint64(Math.floor(n / TWO32), n >>> 0);
  }

  /** Writes a bound, its timestamp delta-coded against the previous bound written. */
  bound(hi: number, lo: number, src: Uint8Array, off: number, len: number): void {
    if (hi === INF_HALF && lo === INF_HALF) {
      this.byte(0);
    } else {
      // (t - last) + 1; writers only emit ascending bounds, so the difference is never negative.
      let dLo = lo - this.#lastLo;
      let dHi = hi - this.#lastHi;
      if (dLo < 0) {
        dLo += TWO32;
        dHi -= 1;
      }
      if (dHi < 0) throw new Error('negentropy: bounds written out of order');
      dLo += 1;
      if (dLo === TWO32) {
        dLo = 0;
        dHi += 1;
      }
      this.varint64(dHi, dLo);
    }
    this.#lastHi = hi;
    this.#lastLo = lo;
    this.byte(len);
    this.copy(src, off, off + len);
  }

  /** Drops everything after the first `length` bytes. */
  truncate(length: number): void {
    this.length = length;
  }

  /** A copy of the bytes written. */
  bytes(): Uint8Array {
    return this.#buf.slice(0, this.length);
  }
}
