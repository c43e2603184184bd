/**
 * What a version is, shared by the code that makes versions (`version-make.ts`) and the code that
 * decodes and checks them (`version.ts`): its limits, its fields, and the bytes its own or its
 * batch's signature covers. Layout: spec 05 §3.
 */
import { leafHash } from './batch-tree.js';
import { MAX_BODY_BYTES } from './body.js';
import { utf8 } from './bytes.js';
import { ENVELOPE_FORMAT } from './envelope.js';
import { SEAL_OVERHEAD } from './seal.js';

export const VERSION_FORMAT = ENVELOPE_FORMAT;
/** A version names at most this many files. */
export const MAX_FILES = 16;
/** A version supersedes at most this many others (the heads it replaces). */
export const MAX_SUPERSEDES = 64;
/** Versions one batch signature covers at most (spec 05 §3.6). */
export const MAX_BATCH = 65_536;
/** Largest encoded version. */
export const MAX_VERSION_BYTES = MAX_BODY_BYTES + SEAL_OVERHEAD + 8 * 1024;
/** What a version's own signature covers: this, then its envelope up to the signature. */
export const SIGNING_CONTEXT = utf8('minca/version/v2\n');
/** What a batch signature covers: this, then the batch's size and root (spec 05 §3.6). */
export const BATCH_CONTEXT = utf8('minca/batch/v2\n');
/** The envelope's limits, as parsing checks them. */
export const LIMITS = {
  maxSupersedes: MAX_SUPERSEDES,
  maxFiles: MAX_FILES,
  maxCollection: 263,
  maxRecord: 64,
  maxBatch: MAX_BATCH,
};

/** A version, decoded and verified. Ids are lowercase hex. */
export interface Version {
  id: string;
  /** The envelope's encoding, exactly as hashed. */
  bytes: Uint8Array;
  space: string;
  collection: string;
  record: string;
  supersedes: string[];
  timestamp: number;
  author: string;
  files: string[];
  /** The sealed body, or `null` for a tombstone (a delete). */
  sealedBody: Uint8Array | null;
}

/** A version's leaf in a batch: SHA-256(0x00 ‖ what its own signature would cover). */
export const leafOf = (unsigned: Uint8Array) => leafHash(unsigned, SIGNING_CONTEXT);

/** What a batch's signature covers: its size and root. */
export function rootMessage(size: number, root: Uint8Array): Uint8Array {
  const out = new Uint8Array(BATCH_CONTEXT.length + 4 + root.length);
  out.set(BATCH_CONTEXT);
  new DataView(out.buffer).setUint32(BATCH_CONTEXT.length, size);
  out.set(root, BATCH_CONTEXT.length + 4);
  return out;
}
