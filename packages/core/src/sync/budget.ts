/**
 * What one connection may make this node do before it is cut off (spec 05 §10.1). A member can
 * always make its peers work (it may write a million versions); what a peer can force without
 * serving a shared space is bounded here, per window:
 *
 * - bytes it sent that are not yet handled (a peer sending faster than the node reads);
 * - `spaces` messages (each may name 10,000 spaces with their proofs), by count and by bytes:
 *   decoding one of 1.8 MB is ~100 ms of CPU, and it can't be bounded before it is decoded;
 * - signatures checked for what it showed in `spaces` (credentials, access proofs);
 * - bytes of messages that served nothing: before the handshake, or about spaces not shared.
 */
import { MincaError } from '../errors.js';

/** The window the counts below are kept over, ms. */
export const BUDGET_WINDOW_MS = 60_000;
/** Bytes received and not handled yet, past which the connection ends. */
export const MAX_QUEUED_BYTES = 32 * 1024 * 1024;
/**
 * Past this many bytes waiting, a connection stops reading from a transport that can pause, and
 * reads again once under {@link RESUME_QUEUED_BYTES}: a starter pushing everything a new peer
 * lacks then waits on the network, rather than the peer holding it all (and going over
 * {@link MAX_QUEUED_BYTES}).
 */
export const PAUSE_QUEUED_BYTES = 2 * 1024 * 1024;
export const RESUME_QUEUED_BYTES = 512 * 1024;
/** `spaces` messages a peer may send per window: the handshake's and a few re-offers. */
export const MAX_SPACES_MESSAGES = 10;
/**
 * Bytes of `spaces` messages a peer may send per window: two full offers (each at most a frame,
 * 2 MiB: 10,000 names with their access proofs and probes are 2.0 MB), or a holder's refusals of
 * 10,000 spaces (at most 3.4 MB) with its own offer.
 */
export const MAX_SPACES_BYTES = 5 * 1024 * 1024;
/** Signatures checked per window for what a peer showed in `spaces`: two full offers. */
export const MAX_OFFER_SIGNATURES = 20_000;
/** Bytes per window of messages that served no shared space. */
export const MAX_IDLE_BYTES = 64 * 1024 * 1024;

export class ConnectionBudget {
  #windowStart: number;
  #spaces = 0;
  #spacesBytes = 0;
  #signatures = 0;
  #idleBytes = 0;
  #queued = 0;

  constructor(private readonly now: () => number) {
    this.#windowStart = now();
  }

  #roll(): void {
    const now = this.now();
    if (now - this.#windowStart < BUDGET_WINDOW_MS) return;
    this.#windowStart = now;
    this.#spaces = 0;
    this.#spacesBytes = 0;
    this.#signatures = 0;
    this.#idleBytes = 0;
  }

  /** A frame arrived: it waits in the inbox until handled. */
  received(bytes: number): void {
    this.#queued += bytes;
    if (this.#queued > MAX_QUEUED_BYTES)
      throw over(`sent more than ${MAX_QUEUED_BYTES >> 20} MiB faster than it is read`);
  }

  /** Bytes of frames received and not handled yet. */
  get queued(): number {
    return this.#queued;
  }

  /** A frame was handled (or dropped). */
  handled(bytes: number): void {
    this.#queued = Math.max(0, this.#queued - bytes);
  }

  /** A `spaces` message of `bytes`. */
  spaces(bytes: number): void {
    this.#roll();
    if (++this.#spaces > MAX_SPACES_MESSAGES)
      throw over(
        `more than ${MAX_SPACES_MESSAGES} spaces messages in ${BUDGET_WINDOW_MS / 1000} s`,
      );
    this.#spacesBytes += bytes;
    if (this.#spacesBytes > MAX_SPACES_BYTES)
      throw over(
        `more than ${MAX_SPACES_BYTES >> 20} MiB of spaces messages in ${BUDGET_WINDOW_MS / 1000} s`,
      );
  }

  /** `n` signatures to check for what the peer showed in `spaces`. */
  signatures(n: number): void {
    this.#roll();
    this.#signatures += n;
    if (this.#signatures > MAX_OFFER_SIGNATURES)
      throw over(
        `more than ${MAX_OFFER_SIGNATURES} signatures to check in ${BUDGET_WINDOW_MS / 1000} s`,
      );
  }

  /** A message of `bytes` that served no shared space. */
  idle(bytes: number): void {
    this.#roll();
    this.#idleBytes += bytes;
    if (this.#idleBytes > MAX_IDLE_BYTES)
      throw over(
        `more than ${MAX_IDLE_BYTES >> 20} MiB of messages for nothing shared in ${BUDGET_WINDOW_MS / 1000} s`,
      );
  }
}

const over = (why: string) => new MincaError('protocol', `the peer went over its budget: ${why}`);
