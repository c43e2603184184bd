import { MincaError } from '@minca/core';
import type { AwsClient } from 'aws4fetch';
import { backoffMs, isRetriableStatus, MAX_ATTEMPTS, retryAfterMs } from './retry-policy.js';
import { describeStatus, readS3ErrorCode } from './s3-error-answer.js';

/** A `fetch`: the global one, or one injected for a platform or a test. */
export type FetchFunction = (request: Request) => Promise<Response>;

/** One S3 request, rebuilt and signed afresh for each attempt. */
export interface S3Request {
  method: 'GET' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: Uint8Array<ArrayBuffer>;
}

/** How {@link SignedTransport} signs, sends and waits. */
export interface SignedTransportOptions {
  client: AwsClient;
  fetch: FetchFunction;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Each attempt, headers and body included, is aborted after this many ms. */
  timeoutMs: number;
}

/**
 * A failure worth another attempt that is not a status: a body shorter than its
 * `Content-Length`, say. Thrown by a response handler; network errors count the same.
 */
export class TransientError extends Error {
  override readonly name = 'TransientError';
}

/**
 * Sends SigV4-signed requests with the retry policy of the product page: 429, 5xx and broken
 * or timed-out connections are tried {@link MAX_ATTEMPTS} times in all, waiting `Retry-After`
 * when given, else {@link backoffMs}. Then it gives up with `MincaError('unavailable')`.
 */
export class SignedTransport {
  readonly #options: SignedTransportOptions;

  constructor(options: SignedTransportOptions) {
    this.#options = options;
  }

  /**
   * Sends `request` and gives its answer to `handle`, which returns the result or throws a
   * `MincaError` to end there. Any other error thrown by `handle` (a body cut short) is
   * transient, like a network error. `what` names the operation and key for messages.
   */
  async send<T>(
    what: string,
    request: S3Request,
    handle: (response: Response) => Promise<T>,
  ): Promise<T> {
    const { client, fetch, random, sleep, timeoutMs } = this.#options;
    let lastFailure: unknown;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      let waitMs: number;
      try {
        // Signed per attempt: the signature covers X-Amz-Date, which must stay fresh.
        const signed = await client.sign(request.url, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          // A redirect would carry our signed headers elsewhere; treat it as an answer instead.
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        const response = await fetch(signed);
        if (!isRetriableStatus(response.status)) return await handle(response);
        // Reading the error code consumes the body, which frees the connection.
        const code = await readS3ErrorCode(response);
        lastFailure = new MincaError(
          'storage',
          `S3 ${what}: ${describeStatus(response.status, code)}`,
        );
        waitMs =
          retryAfterMs(response.headers.get('retry-after'), Date.now()) ??
          backoffMs(attempt, random());
      } catch (error) {
        if (error instanceof MincaError) throw error;
        lastFailure = error;
        waitMs = backoffMs(attempt, random());
      }
      if (attempt + 1 < MAX_ATTEMPTS) await sleep(waitMs);
    }
    throw new MincaError('unavailable', `S3 ${what} failed after ${MAX_ATTEMPTS} attempts`, {
      cause: lastFailure,
    });
  }
}
