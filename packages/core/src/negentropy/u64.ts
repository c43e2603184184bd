/**
 * Negentropy timestamps are unsigned 64-bit. The hot path keeps them as two uint32 halves
 * (hi, lo) so no BigInt is ever created while reconciling; this file converts at the edges.
 */

/** Both halves of the reserved timestamp 2^64-1 (`INF`, Negentropy §1). */
export const INF_HALF = 0xffff_ffff;

const TWO32 = 0x1_0000_0000;
const MAX_ITEM_TIMESTAMP = (1n << 64n) - 2n;

/**
 * Splits an item timestamp into halves, writing them to `out[0]` (hi) and `out[1]` (lo).
 * Items may use 0..2^64-2; 2^64-1 is the protocol's infinity.
 */
export function splitTimestamp(timestamp: number | bigint, out: Uint32Array): void {
  if (typeof timestamp === 'number') {
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
      throw new RangeError('timestamp: expected a safe non-negative integer or a bigint');
    }
    out[0] = Math.floor(timestamp / TWO32);
    out[1] = timestamp >>> 0;
  } else if (typeof timestamp === 'bigint') {
    if (timestamp < 0n || timestamp > MAX_ITEM_TIMESTAMP) {
      throw new RangeError('timestamp: expected 0..2^64-2 (2^64-1 is reserved)');
    }
    out[0] = Number(timestamp >> 32n);
    out[1] = Number(timestamp & 0xffff_ffffn);
  } else {
    throw new TypeError('timestamp: expected a number or a bigint');
  }
}
