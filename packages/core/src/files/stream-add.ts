/**
 * Adding a file from a stream with a few chunks in memory at most (spec 05 §16.6.4). The file
 * id is the hash of the chunk list, known only once every chunk is sealed, so the chunks are
 * written as they are sealed under a temporary id (`f/<tmp>/<n>`, beside `f/<tmp>/adding`);
 * at the end one write lands the list, `own` and `f/<id>/at = tmp`, and the file is whole.
 * A chunk is sealed for its place in a file of its size (§16.6.1): when the size isn't known
 * up front and the stream is longer than {@link CHUNKS_PER_WRITE} chunks, the chunks are first
 * sealed under a key of the add's own, then opened and sealed again once the size is known.
 */
import { toHex } from '../bytes.js';
import { MincaError } from '../errors.js';
import type { FileRef } from '../file-ref.js';
import { randomKey, SEAL_OVERHEAD } from '../seal.js';
import { clearRepeating, setRepeating, setTimer } from '../timers.js';
import { type AbortSignalLike, checkAborted } from './abort.js';
import { type AddFileOptions, checkLabels, refTo } from './add-options.js';
import { hashChunk } from './chunk-hash.js';
import {
  CHUNK_BYTES,
  type ChunkList,
  chunkCount,
  decodeList,
  encodeList,
  MAX_FILE_BYTES,
  openChunk,
  sealChunk,
} from './chunks.js';
import type { FileActivity } from './file-activity.js';
import { ChunkReader, isBlobLike, type PieceSource, pieceSource } from './file-input.js';
import type { FileStore } from './file-store.js';
import { ADDING_EVERY_MS } from './limits.js';

/** Chunks written per store commit when adding a file: progress and abort checks between. */
export const CHUNKS_PER_WRITE = 16;
/** The size a chunk is first sealed for when the file's size is not known yet. */
const STAGED_SIZE = MAX_FILE_BYTES;

export interface StreamAddOptions {
  /** The stream's length, when known: it is sealed in one pass and must give exactly this. */
  size?: number;
  onProgress?: (progress: { done: number; total: number }) => void;
  signal?: AbortSignalLike;
}

export interface StreamAddContext {
  files: FileStore;
  activity: FileActivity;
  now(): number;
}

/**
 * Adds the file a stream-like `input` gives (a TypeError for anything else), taking a `Blob`'s
 * size, type and name where `options` gives none; its FileRef once it is whole in the store.
 */
export async function addFromInput(
  context: StreamAddContext,
  input: unknown,
  options: AddFileOptions,
): Promise<FileRef> {
  const source = pieceSource(input);
  const blob = isBlobLike(input) ? input : undefined;
  const size = options.size ?? blob?.size;
  const labels = {
    mime: options.mime ?? (blob?.type ? blob.type : undefined),
    name: options.name ?? (typeof blob?.name === 'string' ? blob.name : undefined),
  };
  try {
    checkLabels(labels);
    if (size !== undefined && (!Number.isSafeInteger(size) || size < 0))
      throw new MincaError('invalid_input', 'size must be a whole number of bytes');
    if (size !== undefined && size > MAX_FILE_BYTES)
      throw new MincaError('too_large', `a file is at most ${MAX_FILE_BYTES} bytes`);
    checkAborted(options.signal);
  } catch (error) {
    await source.cancel();
    throw error;
  }
  const { key, list } = await addFromStream(context, source, { ...options, size });
  return refTo(list.id, key, list.size, labels);
}

/** Adds the file `source` gives; its key and list once it is whole in the store. */
export async function addFromStream(
  context: StreamAddContext,
  source: PieceSource,
  options: StreamAddOptions,
): Promise<{ key: Uint8Array; list: ChunkList }> {
  const { files, activity } = context;
  const { signal } = options;
  const key = randomKey();
  const tmp = toHex(randomKey());
  const reader = new ChunkReader(source, signal);
  // While the add runs, `adding` is written again now and then, so another process sharing
  // the store doesn't take the chunks for an add cut short; never after the add has ended.
  let ended = false;
  let alive: Promise<void> = Promise.resolve();
  let timer: unknown;
  activity.pin(tmp);
  try {
    await files.stage(tmp, context.now());
    timer = setRepeating(() => {
      alive = alive.then(() => (ended ? undefined : files.stage(tmp, context.now())));
      alive = alive.catch(() => undefined);
    }, ADDING_EVERY_MS);
    const list = await stage(context, tmp, key, reader, options);
    ended = true;
    await alive;
    await files.finishStaged(tmp, list, context.now());
    return { key, list };
  } catch (error) {
    ended = true;
    await reader.cancel().catch(() => undefined);
    await alive;
    await files.dropStaged(tmp).catch(() => undefined);
    throw error;
  } finally {
    ended = true;
    clearRepeating(timer);
    activity.unpin(tmp);
  }
}

/** Reads, seals and writes every chunk under `tmp`; the file's list. */
async function stage(
  context: StreamAddContext,
  tmp: string,
  key: Uint8Array,
  reader: ChunkReader,
  options: StreamAddOptions,
): Promise<ChunkList> {
  const { files } = context;
  const { signal } = options;
  let size = options.size;
  // Without a size, up to CHUNKS_PER_WRITE chunks are held before any is sealed: a stream that
  // ends within them has its size known, and is sealed once, like bytes.
  const first: Uint8Array[] = [];
  if (size === undefined) {
    let held = 0;
    while (first.length <= CHUNKS_PER_WRITE) {
      const chunk = await reader.next();
      if (!chunk) {
        size = held;
        break;
      }
      first.push(chunk);
      held += chunk.length;
    }
  }
  const known = size !== undefined;
  const sealKey = known ? key : randomKey();
  const sealSize = size ?? STAGED_SIZE;
  // Progress, in plaintext bytes: half sealing, half writing (spec 05 §16.6.7). Without a size,
  // the first pass (`total` is what came so far) is the first half, sealing again the second.
  let sealed = 0;
  let written = 0;
  const report = () => {
    const total = size ?? sealed;
    options.onProgress?.({ done: Math.floor((sealed + written) / 2), total });
  };
  if (known) report();
  const hashes: Uint8Array[] = [];
  let batch: Array<[number, Uint8Array]> = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await files.putStaged(tmp, batch);
    for (const [, chunk] of batch) written += chunk.length - SEAL_OVERHEAD;
    batch = [];
    if (known) report();
    else options.onProgress?.({ done: Math.floor(written / 2), total: sealed });
    await breathe(signal);
  };
  for (let n = 0; ; n++) {
    checkAborted(signal);
    const plain = first.shift() ?? (await reader.next());
    if (!plain) break;
    if (sealed + plain.length > MAX_FILE_BYTES)
      throw new MincaError('too_large', `a file is at most ${MAX_FILE_BYTES} bytes`);
    if (size !== undefined && sealed + plain.length > size)
      throw new MincaError('invalid_input', `the stream gave more than the ${size} bytes given`);
    const chunk = sealChunk(sealKey, sealSize, n, plain);
    sealed += plain.length;
    if (known) hashes.push(await hashChunk(chunk));
    batch.push([n, chunk]);
    if (batch.length === CHUNKS_PER_WRITE) await flush();
  }
  await flush();
  if (size !== undefined && sealed !== size)
    throw new MincaError('invalid_input', `the stream gave ${sealed} bytes, not the ${size} given`);
  if (!known) {
    size = sealed;
    const total = size;
    hashes.push(
      ...(await reseal(files, tmp, key, sealKey, total, signal, (bytes) =>
        options.onProgress?.({ done: Math.floor((total + bytes) / 2), total }),
      )),
    );
  }
  return decodeList(encodeList(sealed, hashes));
}

/** Lets the page, or the node's other work, run between groups of chunks; then checks `signal`. */
async function breathe(signal: AbortSignalLike | undefined): Promise<void> {
  await new Promise<void>((r) => setTimer(r, 0));
  checkAborted(signal);
}

/**
 * Opens each chunk written under `tmp` with the add's own key and seals it again for its place
 * in a file of `size`, in place; the hashes of the chunks as they are now.
 */
async function reseal(
  files: FileStore,
  tmp: string,
  key: Uint8Array,
  stagedKey: Uint8Array,
  size: number,
  signal: AbortSignalLike | undefined,
  progress: (bytes: number) => void,
): Promise<Uint8Array[]> {
  const hashes: Uint8Array[] = [];
  const count = chunkCount(size);
  for (let from = 0; from < count; from += CHUNKS_PER_WRITE) {
    checkAborted(signal);
    const batch: Array<[number, Uint8Array]> = [];
    for (let n = from; n < Math.min(count, from + CHUNKS_PER_WRITE); n++) {
      const staged = await files.stagedChunk(tmp, n);
      if (!staged) throw new MincaError('storage', `chunk ${n} of the file being added is gone`);
      let plain: Uint8Array;
      try {
        plain = openChunk(stagedKey, STAGED_SIZE, n, staged);
      } catch (cause) {
        throw new MincaError('corrupt', `chunk ${n} of the file being added changed in the store`, {
          cause,
        });
      }
      const sealed = sealChunk(key, size, n, plain);
      hashes.push(await hashChunk(sealed));
      batch.push([n, sealed]);
    }
    await files.putStaged(tmp, batch);
    progress(Math.min(size, (from + batch.length) * CHUNK_BYTES));
    await breathe(signal);
  }
  return hashes;
}
