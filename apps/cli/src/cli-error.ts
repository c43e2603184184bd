/**
 * How the command fails: a {@link CliError} carries an exit code and a message that says what
 * to do. Errors from the library are mapped to the same codes, so scripts can branch on them.
 */
import { isMincaError } from '@minca/core';

/** Exit codes; the README lists them. */
export const EXIT = {
  ok: 0,
  /** Something failed that has no code of its own. */
  failed: 1,
  /** The command line was wrong. */
  usage: 2,
  /** No account in this home: run `minca init`. */
  noAccount: 3,
  /** A space, record or file named is not here. */
  notFound: 4,
  /** A peer or service could not be reached, or did not answer in time. */
  unavailable: 5,
  /** Refused: not allowed, or over a limit. */
  refused: 6,
  /** Input (a file, a code, JSON) or stored data did not read as it should. */
  badData: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The exit code and message for anything thrown by a command. */
export function describeFailure(error: unknown): { exitCode: ExitCode; message: string } {
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message };
  if (isMincaError(error)) {
    const exitCode: ExitCode =
      error.code === 'unknown_space'
        ? EXIT.notFound
        : error.code === 'not_authorized' || error.code === 'too_large'
          ? EXIT.refused
          : error.code === 'unavailable' || error.code === 'aborted'
            ? EXIT.unavailable
            : error.code === 'malformed' ||
                error.code === 'corrupt' ||
                error.code === 'invalid_input' ||
                error.code === 'invalid_name' ||
                error.code === 'invalid_version'
              ? EXIT.badData
              : EXIT.failed;
    return { exitCode, message: `${error.message} (${error.code})` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { exitCode: EXIT.failed, message };
}
