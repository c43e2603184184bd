/** Attempts in all, the first included: 429, 5xx and broken connections are tried this often. */
export const MAX_ATTEMPTS = 5;

/** The first backoff, before attempt 1, in ms; it doubles per attempt. */
export const BASE_BACKOFF_MS = 200;

/** No computed backoff is longer than this, in ms. */
export const MAX_BACKOFF_MS = 5000;

/**
 * The longest `Retry-After` honoured, in ms. A longer one is cut to this, so a misconfigured
 * server cannot stall a push for hours.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

// The date form servers send (RFC 9110 §5.6.7); Date.parse alone takes "-1" or "1.5" too.
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** True for the statuses worth another attempt: 429 Too Many Requests and every 5xx. */
export function isRetriableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * The wait after failed attempt `attempt` (the first attempt is 0):
 * `min(200·2^attempt, 5000)` ms times `random` scaled into [0.75, 1.25).
 *
 * @param random a number in [0, 1), as `Math.random()` gives.
 */
export function backoffMs(attempt: number, random: number): number {
  const factor = 0.75 + 0.5 * random;
  return Math.min(BASE_BACKOFF_MS * 2 ** attempt, MAX_BACKOFF_MS) * factor;
}

/**
 * The wait a `Retry-After` header asks for, in ms: delta-seconds or an HTTP date, at most
 * {@link MAX_RETRY_AFTER_MS}. `undefined` when the header is absent or unreadable, so the
 * caller falls back to {@link backoffMs}.
 */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  let ms: number;
  if (/^\d+$/.test(value)) {
    ms = Number(value) * 1000;
  } else if (IMF_FIXDATE.test(value)) {
    ms = Math.max(0, Date.parse(value) - now);
  } else {
    return undefined;
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}
