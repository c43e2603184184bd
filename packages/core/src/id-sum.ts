/**
 * The sum of a set of 32-byte ids, as Negentropy fingerprints need (spec 05 §9, Negentropy §5):
 * each id is a little-endian 256-bit integer, added modulo 2^256. Kept as eight 32-bit limbs
 * so adding and removing an id allocates nothing.
 */
import { toHex } from './bytes.js';
import { sha256 } from './primitives.js';

export class IdSum {
  readonly #limbs = new Uint32Array(8);
  readonly #scratch = new Uint32Array(8);
  count = 0;

  /** Adds (sign 1) or takes away (sign -1) one 32-byte id. */
  add(id: Uint8Array, sign: 1 | -1 = 1): void {
    for (let i = 0; i < 8; i++) {
      const o = i * 4;
      this.#scratch[i] =
        (id[o]! | (id[o + 1]! << 8) | (id[o + 2]! << 16) | (id[o + 3]! << 24)) >>> 0;
    }
    this.#addLimbs(this.#scratch, sign);
    this.count += sign;
  }

  /** Adds another sum, and its count, into this one. */
  addSum(other: IdSum): void {
    this.#addLimbs(other.#limbs, 1);
    this.count += other.count;
  }

  #addLimbs(limbs: Uint32Array, sign: 1 | -1): void {
    let carry = 0;
    for (let i = 0; i < 8; i++) {
      const next = this.#limbs[i]! + sign * limbs[i]! + carry;
      // `next` lies in (-2^33, 2^33): split it into a limb and a carry of -1, 0 or 1.
      const wrapped = ((next % 0x1_0000_0000) + 0x1_0000_0000) % 0x1_0000_0000;
      carry = (next - wrapped) / 0x1_0000_0000;
      this.#limbs[i] = wrapped;
    }
  }

  /** The sum as 32 little-endian bytes. */
  bytes(): Uint8Array {
    const out = new Uint8Array(32);
    for (let i = 0; i < 8; i++) {
      const limb = this.#limbs[i]!;
      out[i * 4] = limb & 0xff;
      out[i * 4 + 1] = (limb >>> 8) & 0xff;
      out[i * 4 + 2] = (limb >>> 16) & 0xff;
      out[i * 4 + 3] = limb >>> 24;
    }
    return out;
  }

  /** The Negentropy fingerprint: the first 16 bytes of SHA-256(sum ‖ varint(count)). */
  fingerprint(): Uint8Array {
    return fingerprintOfSum(this.bytes(), this.count);
  }
}

/** The hash's input: a 32-byte sum and a varint of at most 8 groups (counts stay below 2^53). */
const input = new Uint8Array(32 + 8);
const groups = new Uint8Array(8);

/**
 * The Negentropy fingerprint of `count` ids whose sum is `sumLE` (32 bytes, little-endian): the
 * first 16 bytes of SHA-256(sum ‖ varint(count)), the varint base 128, most significant group
 * first, the high bit set on all but the last. Reconciling computes thousands of these, so it
 * builds the input in place rather than through an IdSum.
 */
export function fingerprintOfSum(sumLE: Uint8Array, count: number): Uint8Array {
  input.set(sumLE.subarray(0, 32));
  let n = 0;
  let rest = count;
  do {
    groups[n++] = rest % 128;
    rest = Math.floor(rest / 128);
  } while (rest > 0);
  for (let i = 0; i < n; i++) input[32 + i] = groups[n - 1 - i]! | (i < n - 1 ? 0x80 : 0);
  return sha256(input.subarray(0, 32 + n)).subarray(0, 16);
}

/** The store's fingerprint (hex) of several sets' counts and sums together. */
export function fingerprintOf(parts: Iterable<{ count: number; sum: Uint8Array }>): string {
  const all = new IdSum();
  let count = 0;
  for (const part of parts) {
    all.add(part.sum); // adding a sum of ids adds them all, mod 2^256
    count += part.count;
  }
  all.count = count;
  return toHex(all.fingerprint());
}
