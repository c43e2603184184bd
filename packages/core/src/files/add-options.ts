/** What `addFile` is told besides the bytes, checked, and the FileRef it gives back. */
import { MincaError } from '../errors.js';
import type { FileRef } from '../file-ref.js';
import type { AbortSignalLike } from './abort.js';

/** How far a file operation has got, in plaintext bytes. */
export interface FileProgress {
  done: number;
  total: number;
}

export interface AddFileOptions {
  /** The file's type; a `Blob`'s own type when not given. */
  mime?: string;
  /** The file's name; a `File`'s own name when not given. */
  name?: string;
  /**
   * A stream's length in bytes, when known (a `Blob`'s is): it is then sealed in one pass, and
   * must give exactly this many bytes. Without it, a stream longer than 4 MiB is sealed twice.
   */
  size?: number;
  /**
   * Progress in plaintext bytes: half sealing, half writing. A stream of unknown size tells
   * what it has given so far as `total` until it ends.
   */
  onProgress?: (progress: FileProgress) => void;
  signal?: AbortSignalLike;
}

const MAX_LABEL = 1_000;

/** A `mime` or `name` is text of at most 1,000 characters: `invalid_input` otherwise. */
export function checkLabels(labels: { mime?: unknown; name?: unknown }): void {
  for (const label of ['mime', 'name'] as const) {
    const value = labels[label];
    if (value !== undefined && (typeof value !== 'string' || value.length > MAX_LABEL))
      throw new MincaError('invalid_input', `${label} must be text of at most ${MAX_LABEL}`);
  }
}

/** The FileRef of a file added. */
export const refTo = (
  id: string,
  key: Uint8Array,
  size: number,
  labels: { mime?: string | undefined; name?: string | undefined },
): FileRef => ({
  $file: id,
  key,
  size,
  ...(labels.mime !== undefined ? { mime: labels.mime } : {}),
  ...(labels.name !== undefined ? { name: labels.name } : {}),
});
