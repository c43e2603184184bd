/**
 * The part of `AbortSignal` core uses, typed here because core sees no DOM or Node types. Every
 * runtime's `AbortSignal` fits it.
 */
import { MincaError } from '../errors.js';

export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Throws `aborted` when `signal` has aborted. */
export function checkAborted(signal: AbortSignalLike | undefined): void {
  if (signal?.aborted) throw new MincaError('aborted', 'the file operation was aborted');
}
