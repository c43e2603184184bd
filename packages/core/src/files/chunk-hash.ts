/**
 * SHA-256 of sealed chunks, for checking them against their list (spec 05 §16.6.2): through the
 * runtime's WebCrypto where it has one — native, and in Node run off the main thread, about ten
 * times @noble/hashes here — else @noble/hashes. WebCrypto is checked against noble once
 * before it is used, and a digest it fails is taken from noble, so the answer never differs.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { equalBytes } from '../bytes.js';
import type { ChunkList } from './chunks.js';
import { sealedLength } from './chunks.js';

/** The part of WebCrypto's SubtleCrypto this uses; a platform object, so typed here. */
interface SubtleDigest {
  digest(algorithm: 'SHA-256', data: Uint8Array): Promise<ArrayBuffer>;
}

const subtle = (globalThis as { crypto?: { subtle?: SubtleDigest } }).crypto?.subtle;
let native: Promise<boolean> | undefined;

/** Whether WebCrypto's SHA-256 is there and gives noble's digest. */
function nativeDigest(): Promise<boolean> {
  native ??= (async () => {
    if (!subtle) return false;
    try {
      const probe = new Uint8Array(1000).map((_, i) => i * 7);
      return equalBytes(new Uint8Array(await subtle.digest('SHA-256', probe)), sha256(probe));
    } catch {
      return false;
    }
  })();
  return native;
}

/** SHA-256 of `bytes`, natively where the runtime can. */
export async function hashChunk(bytes: Uint8Array): Promise<Uint8Array> {
  if (await nativeDigest()) {
    try {
      return new Uint8Array(await subtle!.digest('SHA-256', bytes));
    } catch {
      // A view WebCrypto won't take (of a SharedArrayBuffer, say): noble takes any.
    }
  }
  return sha256(bytes);
}

/** Whether `sealed` is chunk `n` of `list`, as `chunkMatches` says, hashing with {@link hashChunk}. */
export async function chunkChecks(
  list: ChunkList,
  n: number,
  sealed: Uint8Array,
): Promise<boolean> {
  if (!(n >= 0 && n < list.hashes.length && sealed instanceof Uint8Array)) return false;
  if (sealed.length !== sealedLength(list.size, n)) return false;
  return equalBytes(await hashChunk(sealed), list.hashes[n]!);
}
