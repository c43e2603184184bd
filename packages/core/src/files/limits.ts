/**
 * What a device keeps of the files it didn't add, per space, and when it acts: the numbers of
 * the product page's "What a device keeps" (spec 05 §16.6).
 */

/** How much of a space's files a device fetches ahead and keeps. Infinity is allowed. */
export interface FileLimits {
  /** Files up to this many bytes are fetched before anyone reads them. */
  ahead: number;
  /** Past this many bytes of files, the longest-unused are dropped down to 90%. */
  keep: number;
}

export const DEFAULT_FILE_LIMITS: Readonly<FileLimits> = {
  ahead: 5 * 1024 * 1024,
  keep: 256 * 1024 * 1024,
};

/** Files are fetched ahead, and unnamed ones dropped, this long after records change. */
export const FILES_AFTER_CHANGE_MS = 2_000;
/** A file nobody had is not asked of every source again for this long. */
export const NOBODY_HAD_MS = 10 * 60_000;
/** A read nobody could answer asks again this often. */
export const READ_RETRY_MS = 15_000;
/** A file added here and not named yet is kept this long. */
export const UNNAMED_OWN_MS = 24 * 60 * 60_000;
/** An add from a stream writes `f/<tmp>/adding` at least this often while it runs. */
export const ADDING_EVERY_MS = 60_000;
/** Chunks of an add from a stream not said to be running for this long are dropped. */
export const ADD_CUT_SHORT_MS = 10 * 60_000;
/** Past `keep`, files are dropped down to this share of it. */
export const KEEP_DOWN_TO = 0.9;
/** New limits reach every open space within this long. */
export const LIMITS_APPLY_MS = 500;

/** Checks limits from a caller: each a number ≥ 0, Infinity allowed. */
export function checkLimits(limits: Partial<FileLimits>): void {
  for (const name of ['ahead', 'keep'] as const) {
    const value = limits[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0)
      throw new RangeError(`${name} must be a number of bytes >= 0, or Infinity`);
  }
}
