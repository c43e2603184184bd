/**
 * This platform's crypto for every node the CLI makes: `node:crypto`'s Ed25519 signs a put
 * about four times as fast as WebCrypto one at a time, and its SHA-256 and ChaCha20-Poly1305
 * hash and seal two to three times as fast as @noble (spec 05 §6; core checks each at start).
 */
import * as crypto from 'node:crypto';
import { availableParallelism } from 'node:os';
import * as workers from 'node:worker_threads';
import { nodeCrypto } from '@minca/core';

/** For a command: done in this thread, so a quick command starts no worker. */
export const PLATFORM_CRYPTO = nodeCrypto(crypto);

/**
 * For what serves peers for long (`minca host`, the daemon): many versions coming in are
 * checked, and many bodies opened, on worker threads, one per core but this one.
 */
export const SERVING_CRYPTO = nodeCrypto(crypto, {
  workers,
  threads: Math.max(1, availableParallelism() - 1),
});
