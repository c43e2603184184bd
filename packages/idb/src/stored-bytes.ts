/** Bytes in and out of IndexedDB: stored as ArrayBuffers, returned as Uint8Arrays. */
import { MincaError } from '@minca/core';

/**
 * An ArrayBuffer holding exactly `bytes`, for `put`. IndexedDB clones what it is given inside
 * `put` itself, so a view spanning its whole (non-shared) buffer passes that buffer as it is:
 * the clone is the copy. Any other view is sliced first, so only its own bytes are kept.
 */
export function toStored(bytes: Uint8Array): ArrayBuffer {
  const { buffer } = bytes;
  if (
    buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === buffer.byteLength
  ) {
    return buffer;
  }
  // Not `bytes.slice()`: on a Node Buffer that is a view of Node's shared pool, not a copy.
  return Uint8Array.prototype.slice.call(bytes).buffer as ArrayBuffer;
}

/** Checked by tag too, so an ArrayBuffer cloned in another realm still counts. */
function isArrayBuffer(value: unknown): value is ArrayBuffer {
  return Object.prototype.toString.call(value) === '[object ArrayBuffer]';
}

/**
 * What a read returned, as bytes: `undefined` stays absent. Anything else than an ArrayBuffer
 * was not written by this adapter, so it is reported, not guessed at.
 *
 * @throws MincaError `corrupt` when the stored value is not an ArrayBuffer.
 */
export function fromStored(value: unknown, what: string): Uint8Array | undefined {
  if (value === undefined) return undefined;
  if (value instanceof ArrayBuffer || isArrayBuffer(value)) return new Uint8Array(value);
  const kind =
    value === null ? 'null' : typeof value === 'object' ? value.constructor?.name : typeof value;
  throw new MincaError('corrupt', `${what} holds ${kind ?? 'an object'}, not an ArrayBuffer`);
}
