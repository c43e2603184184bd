/**
 * Negentropy V1, byte-compatible with hoytech/negentropy: `@minca/core/negentropy`.
 * Fill a {@link NegentropyStorage} and seal it, or keep a {@link NegentropySet} and take
 * snapshots of it, and run a {@link Negentropy} per side.
 */
export { Negentropy, type ReconcileResult } from './negentropy.js';
export {
  DEFAULT_BLOCK_SIZE,
  NegentropySet,
  type NegentropySetOptions,
  NegentropySnapshot,
} from './set.js';
export { NegentropyStorage } from './storage.js';
