/**
 * A ranged GET (`Range: bytes=a-b`, spec 05 §15.3): only the bytes asked for cross the wire.
 * A `206` must say (`Content-Range`) it starts where asked; a server that ignores the range
 * and answers `200` with the whole object is read only as far as needed; `416` is a range past
 * the object's end.
 */
import { MincaError } from '@minca/core';
import { contentLengthDiffers, discardBody, readPrefix } from './response-body.js';
import { TransientError } from './signed-transport.js';

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+|\*)$/;

/** The `Range` header for `length` bytes from `offset`; HTTP ranges are inclusive, never empty. */
export const rangeHeader = (offset: number, length: number): string =>
  `bytes=${offset}-${offset + Math.max(length, 1) - 1}`;

/**
 * The `length` bytes from `offset` in a 200, 206 or 416 answer to {@link rangeHeader}; `what`
 * names the operation for messages. A body cut short is a `TransientError` (tried again).
 */
export async function readRange(
  what: string,
  response: Response,
  offset: number,
  length: number,
): Promise<Uint8Array | undefined> {
  if (response.status === 416) {
    // Past the end, or an empty object: it is there and holds nothing in that range.
    await discardBody(response);
    return new Uint8Array(0);
  }
  if (response.status === 200) {
    // The range was ignored: this is the whole object, from its first byte.
    const { bytes } = await readPrefix(response, offset + length);
    const whole = response.headers.get('content-length');
    if (
      whole !== null &&
      /^\d+$/.test(whole) &&
      bytes.length < Math.min(Number(whole), offset + length)
    )
      throw new TransientError(`body of ${bytes.length} bytes is short of its Content-Length`);
    return bytes.slice(offset);
  }
  if (response.status !== 206) return undefined;
  const range = CONTENT_RANGE.exec(response.headers.get('content-range')?.trim() ?? '');
  const [start, end] = [Number(range?.[1]), Number(range?.[2])];
  if (!range || start !== offset || end < start)
    throw new MincaError('malformed', `S3 ${what} got a partial answer for another range`);
  const total = range[3] === '*' ? Number.POSITIVE_INFINITY : Number(range[3]);
  // What the server can send of it: some servers say 0-0 of an empty object.
  const sent = Math.max(0, Math.min(end, total - 1) - start + 1);
  const want = Math.min(length, sent);
  if (want === 0) {
    await discardBody(response);
    return new Uint8Array(0);
  }
  const { bytes, more } = await readPrefix(response, want);
  if (bytes.length < want)
    throw new TransientError(`body of ${bytes.length} bytes is short of its Content-Range`);
  if (!more && want === sent && contentLengthDiffers(response, bytes.length))
    throw new TransientError(`body of ${bytes.length} bytes is not its Content-Length`);
  return bytes;
}
