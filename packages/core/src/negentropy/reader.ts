/**
 * A bounded reader over one received Negentropy message. Every read checks the remaining
 * length first, so hostile input ends in `MincaError('malformed')`, never a hang or a huge
 * allocation.
 */
import { MincaError } from '../errors.js';
import type { Bound } from './bound.js';
import { INF_HALF } from './u64.js';

const TWO32 = 0x1_0000_0000;

export function malformed(message: string): never {
  throw new MincaError('malformed', `negentropy: ${message}`);
}

export class Reader {
  pos = 0;
  /** The last varint read by {@link varint64}, as halves (kept here to avoid allocating). */
  hi = 0;
  lo = 0;
  /** Timestamp of the last bound read: the base of the next delta (Negentropy §3). */
  #lastHi = 0;
  #lastLo = 0;

  constructor(readonly buf: Uint8Array) {}

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  /** Reads a varint of up to 64 bits into {@link hi}/{@link lo}. */
  varint64(): void {
    const buf = this.buf;
    let pos = this.pos;
    let hi = 0;
    let lo = 0;
    // A leading 0x80 group adds nothing: the encoding is not the shortest, so refuse it.
    if (buf[pos] === 0x80) malformed('varint is not minimal');
    for (;;) {
      if (pos >= buf.length) malformed('varint runs past the end');
      const b = buf[pos++]!;
      if (hi >>> 25 !== 0) malformed('varint exceeds 64 bits');
      hi = ((hi << 7) | (lo >>> 25)) >>> 0;
      lo = ((lo << 7) | (b & 0x7f)) >>> 0;
      if ((b & 0x80) === 0) break;
    }
    this.pos = pos;
    this.hi = hi;
    this.lo = lo;
  }

  /** Reads a varint that must be at most `max` (a uint32). */
  varint(max: number, what: string): number {
    this.varint64();
    if (this.hi !== 0 || this.lo > max) malformed(`${what} over ${max}`);
    return this.lo;
  }

  /** Claims the next `n` bytes and returns where they start. */
  take(n: number, what: string): number {
    if (n > this.remaining) malformed(`${what} runs past the end`);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  /** Reads a bound into `into`; its prefix stays a view of the message (no copy). */
  bound(into: Bound): void {
    this.varint64();
    let hi: number;
    let lo: number;
    const lastIsInf = this.#lastHi === INF_HALF && this.#lastLo === INF_HALF;
    if ((this.hi === 0 && this.lo === 0) || lastIsInf) {
      // 0 means INF; after INF everything saturates to INF, as the C++ reference does.
      hi = INF_HALF;
      lo = INF_HALF;
    } else {
      // t = last + (v - 1), saturating at INF on 64-bit overflow.
      let vHi = this.hi;
      let vLo = this.lo - 1;
      if (vLo < 0) {
        vLo += TWO32;
        vHi -= 1;
      }
      lo = this.#lastLo + vLo;
      hi = this.#lastHi + vHi;
      if (lo >= TWO32) {
        lo -= TWO32;
        hi += 1;
      }
      if (hi >= TWO32) {
        hi = INF_HALF;
        lo = INF_HALF;
      }
    }
    this.#lastHi = hi;
    this.#lastLo = lo;
    const len = this.varint(32, 'bound prefix length');
    const at = this.take(len, 'bound prefix');
    into.set(hi, lo, this.buf, at, len);
  }
}
