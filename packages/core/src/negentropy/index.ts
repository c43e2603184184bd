/**
 * Negentropy V1, byte-compatible with hoytech/negentropy: `@minca/core/negentropy`.
 * Fill a {@link NegentropyStorage}, seal it, and run a {@link Negentropy} per side.
 */
export { Negentropy, type ReconcileResult } from './negentropy.js';
export { NegentropyStorage } from './storage.js';
