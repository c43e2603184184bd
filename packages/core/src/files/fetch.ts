/**
 * Fetches a file, checking everything against the file id: the list must hash to it, each
 * chunk must have its length and hash in the list (spec 05 §16.6.6). Every peer that shares
 * the space is asked at once, each for different chunks; then each other source (mirrors),
 * one after another, for what is still missing. A source that sends anything that doesn't
 * check out, more or fewer chunks than asked, fails or stalls is dropped for this fetch;
 * nothing in that answer is stored, and its chunks are asked of the others. What a source gave
 * stays.
 */
import { type AbortSignalLike, checkAborted } from './abort.js';
import type { ChunkList } from './chunks.js';
import { type FetchShared, GroupFetch } from './fetch-group.js';
import type { FileStore } from './file-store.js';
import type { FileSource } from './source.js';

export { ASKS_PER_SOURCE, CHUNKS_PER_ASK, LATE_AFTER_MS } from './fetch-group.js';

export interface FetchOptions {
  signal?: AbortSignalLike;
  /** Called after each answer's chunks are stored. */
  onChunks?: () => void;
  /** Told each chunk as it is stored, checked, once; what it throws ends the fetch. */
  onChunk?: (n: number, sealed: Uint8Array) => void;
  /**
   * Only these chunks, asked lowest first (a read by range): the fetch ends once they are all
   * here. Without it, every chunk not held.
   */
  only?: readonly number[];
  /** Asked once the list is known: false stops before any chunk (it's too big to fetch ahead). */
  proceed?: (list: ChunkList) => boolean;
  /** Told of each source as it is first asked; peers are asked together, so several at once. */
  onSource?: (source: FileSource) => void;
  /** Told of each source dropped for sending what doesn't check out, failing or stalling, and why. */
  onRefused?: (source: FileSource, why: string) => void;
}

/**
 * `whole`: every chunk is here (with `only`, every chunk asked); `nobody`: no source had all of
 * it; `stopped`: `proceed` said no.
 */
export type FetchResult = 'whole' | 'nobody' | 'stopped';

/** The rounds of a fetch: every peer at once, then each other source on its own, in order. */
function rounds(sources: readonly FileSource[]): FileSource[][] {
  const peers = sources.filter((s) => s.kind === 'peer');
  const others = sources.filter((s) => s.kind !== 'peer').map((s) => [s]);
  return peers.length > 0 ? [peers, ...others] : others;
}

export async function fetchFile(
  files: FileStore,
  id: string,
  sources: readonly FileSource[],
  options: FetchOptions = {},
): Promise<FetchResult> {
  checkAborted(options.signal);
  const shared: FetchShared = { proceeded: false };
  const done = () => {
    const { only } = options;
    if (!only) return files.isWhole(id);
    const file = files.get(id);
    return file?.list !== undefined && only.every((n) => file.held.has(n));
  };
  for (const round of rounds(sources)) {
    if (done()) break;
    if ((await new GroupFetch(files, id, round, options, shared).run()) === 'stopped')
      return 'stopped';
  }
  return done() ? 'whole' : 'nobody';
}
