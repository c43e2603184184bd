/**
 * Random bytes from the platform's generator, taken a page at a time: asking it for a few bytes
 * costs more than the seal or id they are for. Each byte is handed out once.
 */
import { randomBytes } from '@noble/ciphers/utils.js';

const PAGE = 4096;
let pool = new Uint8Array(0);
let at = 0;

/** `n` random bytes (n at most 4096), a copy of their own. */
export function pooledRandom(n: number): Uint8Array {
  if (at + n > pool.length) {
    pool = randomBytes(PAGE);
    at = 0;
  }
  at += n;
  return pool.slice(at - n, at);
}
