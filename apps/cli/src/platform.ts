/**
 * This platform's crypto for every node the CLI makes: `node:crypto`'s Ed25519 signs a put
 * about four times as fast as WebCrypto one at a time, and its SHA-256 and ChaCha20-Poly1305
 * hash and seal two to three times as fast as @noble (spec 05 §6; core checks each at start).
 */
import * as crypto from 'node:crypto';
import { nodeCrypto } from '@minca/core';

export const PLATFORM_CRYPTO = nodeCrypto(crypto);
