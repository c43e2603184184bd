/**
 * Fetches a file from sources one after another, checking everything against the file id: the
 * list must hash to it, each chunk must have its length and hash in the list. A source that
 * sends anything else, more than was asked, fails or stalls is moved past; nothing it sent is
 * stored. What one source gave stays, and the next is asked only for the rest.
 */
import { isMincaError } from '../errors.js';
import { type AbortSignalLike, checkAborted } from './abort.js';
import { type ChunkList, chunkMatches, decodeList } from './chunks.js';
import type { FileStore } from './file-store.js';
import type { FileSource } from './source.js';

/** Chunks asked of a source at once: a peer serves at most this many per request. */
export const CHUNKS_PER_ASK = 4;

export interface FetchOptions {
  signal?: AbortSignalLike;
  /** Called after each batch of chunks is stored. */
  onChunks?: () => void;
  /** Asked once the list is known: false stops before any chunk (it's too big to fetch ahead). */
  proceed?: (list: ChunkList) => boolean;
  /** Told of each source as it is asked. */
  onSource?: (source: FileSource) => void;
  /** Told of each source moved past for sending what doesn't check out, and why. */
  onRefused?: (source: FileSource, why: string) => void;
}

/** `whole`: every chunk is here; `nobody`: no source had all of it; `stopped`: `proceed` said no. */
export type FetchResult = 'whole' | 'nobody' | 'stopped';

/** What a source sent that was refused. */
class Refused extends Error {}

/** Runs a source's call; anything it throws, and anything that doesn't check out, moves past it. */
async function ask<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isMincaError(error, 'aborted')) throw error;
    throw new Refused(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

function askChunks(
  source: FileSource,
  id: string,
  ns: number[],
  signal: AbortSignalLike | undefined,
): Promise<Array<Uint8Array | null>> {
  return ask(async () => {
    const got = source.chunks
      ? await source.chunks(id, ns, signal)
      : await Promise.all(ns.map((n) => source.chunk(id, n, signal)));
    if (!Array.isArray(got) || got.length !== ns.length)
      throw new Refused(`sent ${Array.isArray(got) ? got.length : 'no'} chunks for ${ns.length}`);
    return got;
  });
}

export async function fetchFile(
  files: FileStore,
  id: string,
  sources: readonly FileSource[],
  options: FetchOptions = {},
): Promise<FetchResult> {
  const { signal } = options;
  for (const source of sources) {
    if (files.isWhole(id)) break;
    checkAborted(signal);
    options.onSource?.(source);
    try {
      let list = files.get(id)?.list;
      if (!list) {
        const bytes = await ask(() => source.list(id, signal));
        if (bytes === null) continue;
        try {
          list = decodeList(bytes, id);
        } catch (error) {
          throw new Refused((error as Error).message);
        }
        await files.putList(list);
      }
      if (options.proceed && !options.proceed(list)) return 'stopped';
      const held = files.get(id)!.held;
      const missing: number[] = [];
      for (let n = 0; n < list.hashes.length; n++) if (!held.has(n)) missing.push(n);
      const batches: number[][] = [];
      for (let i = 0; i < missing.length; i += CHUNKS_PER_ASK)
        batches.push(missing.slice(i, i + CHUNKS_PER_ASK));
      // One ask ahead while the last answer is checked and stored, so the link never idles.
      let next = batches.length > 0 ? askChunks(source, id, batches[0]!, signal) : undefined;
      next?.catch(() => undefined);
      for (let b = 0; b < batches.length; b++) {
        const got = await next!;
        next = b + 1 < batches.length ? askChunks(source, id, batches[b + 1]!, signal) : undefined;
        next?.catch(() => undefined);
        const batch = batches[b]!;
        const good: Array<[number, Uint8Array]> = [];
        let lacking = false;
        for (let i = 0; i < batch.length; i++) {
          const sealed = got[i];
          if (sealed === null || sealed === undefined) lacking = true;
          else if (!chunkMatches(list, batch[i]!, sealed))
            throw new Refused(`chunk ${batch[i]} does not match the chunk list`);
          else good.push([batch[i]!, sealed]);
        }
        await files.putChunks(id, good);
        options.onChunks?.();
        checkAborted(signal);
        // This source lacks part of it: the next one is asked for the rest.
        if (lacking) break;
      }
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      options.onRefused?.(source, error.message);
    }
  }
  return files.isWhole(id) ? 'whole' : 'nobody';
}
