/**
 * Every failure minca reports on purpose is a {@link MincaError} with one of these codes.
 * Misuse of an argument's type is a plain `TypeError`/`RangeError` instead.
 */
export type MincaErrorCode =
  /** Bytes from outside (a peer, a file, a bucket) did not decode: bad CBOR, over a bound. */
  | 'malformed'
  /** A value is over a size or count limit. */
  | 'too_large'
  /** A name (collection, key, path) is outside its grammar. */
  | 'invalid_name'
  /** A record body or argument cannot be encoded or is not allowed. */
  | 'invalid_input'
  /** A version failed verification: id, signature, space or seal. */
  | 'invalid_version'
  /** The author may not do this in the space. */
  | 'not_authorized'
  /** No such space is known here. */
  | 'unknown_space'
  /** The node, space or store is closed. */
  | 'closed'
  /** Data already stored does not read back as it should. */
  | 'corrupt'
  /** A storage backend failed. */
  | 'storage'
  /** A peer broke the sync protocol. */
  | 'protocol'
  /** The operation was aborted by its caller. */
  | 'aborted'
  /** A remote service failed after retries. */
  | 'unavailable';

/** The one error class of minca: a code to branch on, a message for people, and a cause. */
export class MincaError extends Error {
  override readonly name = 'MincaError';
  readonly code: MincaErrorCode;

  constructor(code: MincaErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True when `error` is a {@link MincaError}, optionally with the given code. */
export function isMincaError(error: unknown, code?: MincaErrorCode): error is MincaError {
  return error instanceof MincaError && (code === undefined || error.code === code);
}
