/**
 * The frame a synced folder's files are written in, so a reader can tell a whole file from one
 * a sync service is still copying (or an empty file a browser made before its bytes landed):
 * `"MFV1"` ‖ value ‖ the first 8 bytes of SHA-256(`"MFV1"` ‖ value). Spec 05 §14.3.
 */
import { hashId } from '@minca/core';

const MAGIC = [0x4d, 0x46, 0x56, 0x31]; // "MFV1"
const CHECK = 8;

/** Bytes a frame adds to a value. */
export const FRAME_OVERHEAD = MAGIC.length + CHECK;

/** The framed bytes of `value`. */
export function frame(value: Uint8Array): Uint8Array {
  const out = new Uint8Array(value.length + FRAME_OVERHEAD);
  out.set(MAGIC);
  out.set(value, MAGIC.length);
  const end = MAGIC.length + value.length;
  out.set(hashId(out.subarray(0, end)).subarray(0, CHECK), end);
  return out;
}

/** The value in `bytes`, or `undefined` when they are not one whole frame. */
export function unframe(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length < FRAME_OVERHEAD || MAGIC.some((b, i) => bytes[i] !== b)) return undefined;
  const end = bytes.length - CHECK;
  const check = hashId(bytes.subarray(0, end));
  for (let i = 0; i < CHECK; i++) if (check[i] !== bytes[end + i]) return undefined;
  return bytes.slice(MAGIC.length, end);
}
