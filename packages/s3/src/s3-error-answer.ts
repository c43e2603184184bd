import { MincaError } from '@minca/core';
import { readBounded } from './response-body.js';

/** Error answers are small; more than this is not read. */
const ERROR_BODY_LIMIT = 64 * 1024;

/**
 * The `<Code>` of an S3 error answer (`NoSuchBucket`, `AccessDenied`, `SlowDown`…), or
 * `undefined`. Only the code is kept: a server's free-text message could echo a request's
 * headers, so it never goes into our messages.
 */
export async function readS3ErrorCode(response: Response): Promise<string | undefined> {
  let body: Uint8Array | undefined;
  try {
    body = await readBounded(response, ERROR_BODY_LIMIT);
  } catch {
    return undefined;
  }
  if (!body) return undefined;
  const code = /<Code>\s*([A-Za-z][A-Za-z0-9.]{0,63})\s*<\/Code>/.exec(
    new TextDecoder().decode(body),
  );
  return code?.[1];
}

/** What to say about an HTTP answer: `HTTP 403 AccessDenied`. */
export function describeStatus(status: number, code: string | undefined): string {
  return code ? `HTTP ${status} ${code}` : `HTTP ${status}`;
}

/**
 * The error for a final, non-retriable answer to `what` (e.g. `get of "a/b"`):
 * `not_authorized` for 401 and 403, `storage` for the rest.
 */
export function statusError(what: string, status: number, code: string | undefined): MincaError {
  const kind = status === 401 || status === 403 ? 'not_authorized' : 'storage';
  return new MincaError(kind, `S3 ${what} failed: ${describeStatus(status, code)}`);
}
