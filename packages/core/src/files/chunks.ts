/**
 * A file's format (spec 05 §16.6): its bytes in 256 KiB chunks, each sealed under the file's
 * own key, and a chunk list holding each sealed chunk's SHA-256. The file id is the hash of the
 * list, so anyone — a host without any key included — can check a list against its id and a
 * chunk against its list; only the key's holder can open the chunks.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { equalBytes, toHex } from '../bytes.js';
import { decodeStrict, encodeCbor } from '../encoding.js';
import { MincaError } from '../errors.js';
import { open, SEAL_OVERHEAD, seal } from '../seal.js';

/** Plaintext bytes per chunk; the last chunk holds the rest. */
export const CHUNK_BYTES = 256 * 1024;
/** Chunks one file may have: 4 GiB. Its list then stays well inside a sync frame. */
export const MAX_FILE_CHUNKS = 16_384;
export const MAX_FILE_BYTES = CHUNK_BYTES * MAX_FILE_CHUNKS;
const LIST_FORMAT = 1;
/** The largest chunk list: its map, size and 16,384 hashes. */
export const MAX_LIST_BYTES = 64 + MAX_FILE_CHUNKS * 35;
const CHUNK_CONTEXT = 'minca/chunk/v1';

/** A file's chunk list, decoded. */
export interface ChunkList {
  /** The file id: SHA-256 of the list's encoding, as hex. */
  id: string;
  /** The list as stored and sent. */
  bytes: Uint8Array;
  /** Plaintext size of the file. */
  size: number;
  /** SHA-256 of each sealed chunk, in order. */
  hashes: Uint8Array[];
}

/** How many chunks a file of `size` bytes has. */
export const chunkCount = (size: number): number => Math.ceil(size / CHUNK_BYTES);

/** Plaintext bytes of chunk `n` of a file of `size` bytes. */
export const plainLength = (size: number, n: number): number =>
  Math.min(CHUNK_BYTES, size - n * CHUNK_BYTES);

/** Bytes sealed chunk `n` takes. */
export const sealedLength = (size: number, n: number): number =>
  plainLength(size, n) + SEAL_OVERHEAD;

/** Bytes every sealed chunk of a file of `size` takes together. */
export const sealedSize = (size: number): number => size + chunkCount(size) * SEAL_OVERHEAD;

/** Binds a chunk to its place in its file, so chunks can't be reordered or cut short. */
const chunkAad = (size: number, n: number) => encodeCbor([CHUNK_CONTEXT, size, n]);

export function encodeList(size: number, hashes: Uint8Array[]): Uint8Array {
  return encodeCbor({ v: LIST_FORMAT, s: size, h: hashes });
}

/**
 * Decodes a chunk list from outside and checks it against the id it was asked for. Anything
 * off is `invalid_input`: the list is refused.
 */
export function decodeList(bytes: Uint8Array, id?: string): ChunkList {
  const bad = (why: string): never => {
    throw new MincaError('invalid_input', `chunk list refused: ${why}`);
  };
  if (!(bytes instanceof Uint8Array) || bytes.length > MAX_LIST_BYTES) bad('too large');
  const listId = toHex(sha256(bytes));
  if (id !== undefined && listId !== id) bad('it does not hash to the file id');
  let m: Record<string, unknown>;
  try {
    m = decodeStrict(bytes, { maxBytes: MAX_LIST_BYTES, maxDepth: 2 }) as Record<string, unknown>;
  } catch (cause) {
    throw new MincaError('invalid_input', 'chunk list refused: it does not decode', { cause });
  }
  if (m === null || typeof m !== 'object' || Array.isArray(m) || m instanceof Uint8Array)
    bad('not a map');
  const keys = Object.keys(m).sort();
  if (keys.join() !== 'h,s,v') bad('wrong fields');
  if (m.v !== LIST_FORMAT) bad(`format ${String(m.v)} is not ${LIST_FORMAT}`);
  const size = m.s;
  if (!Number.isSafeInteger(size) || (size as number) < 0 || (size as number) > MAX_FILE_BYTES)
    bad('bad size');
  const hashes = m.h;
  if (!Array.isArray(hashes) || hashes.length !== chunkCount(size as number))
    bad('the hash count does not match the size');
  for (const h of hashes as unknown[])
    if (!(h instanceof Uint8Array) || h.length !== 32) bad('a hash is not 32 bytes');
  // Deterministic encoding: one list, one id.
  if (!equalBytes(encodeList(size as number, hashes as Uint8Array[]), bytes)) bad('not canonical');
  return { id: listId, bytes, size: size as number, hashes: hashes as Uint8Array[] };
}

/** Whether `sealed` is chunk `n` of `list`: its length and hash. Needs no key. */
export function chunkMatches(list: ChunkList, n: number, sealed: Uint8Array): boolean {
  return (
    n >= 0 &&
    n < list.hashes.length &&
    sealed instanceof Uint8Array &&
    sealed.length === sealedLength(list.size, n) &&
    equalBytes(sha256(sealed), list.hashes[n]!)
  );
}

/** Seals chunk `n` of a file of `size` bytes. */
export function sealChunk(key: Uint8Array, size: number, n: number, plain: Uint8Array): Uint8Array {
  return seal(key, plain, chunkAad(size, n));
}

/** Opens chunk `n`; one that won't is `invalid_input` (the file won't open as named). */
export function openChunk(
  key: Uint8Array,
  size: number,
  n: number,
  sealed: Uint8Array,
): Uint8Array {
  try {
    return open(key, sealed, chunkAad(size, n));
  } catch (cause) {
    throw new MincaError('invalid_input', `chunk ${n} does not open under the file's key`, {
      cause,
    });
  }
}

/** Seals a whole file: its chunks and its list. */
export function sealFile(
  key: Uint8Array,
  bytes: Uint8Array,
  onChunk?: (n: number, sealed: Uint8Array) => void,
): { list: ChunkList; chunks: Uint8Array[] } {
  const size = bytes.length;
  const chunks: Uint8Array[] = [];
  const hashes: Uint8Array[] = [];
  for (let n = 0; n < chunkCount(size); n++) {
    const sealed = sealChunk(key, size, n, bytes.subarray(n * CHUNK_BYTES, (n + 1) * CHUNK_BYTES));
    chunks.push(sealed);
    hashes.push(sha256(sealed));
    onChunk?.(n, sealed);
  }
  const listBytes = encodeList(size, hashes);
  return { list: { id: toHex(sha256(listBytes)), bytes: listBytes, size, hashes }, chunks };
}
