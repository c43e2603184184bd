/**
 * Reading a byte range of a file as it comes, chunk by chunk, with a few chunks in memory at
 * most (spec 05 §16.6.8). Only the chunks covering the range are read: each from the store when
 * held, else fetched, in order of need, {@link WINDOW_CHUNKS} at a time from the sources a
 * whole read asks (peers at once, then mirrors); the next window is asked while the one before
 * is read, never more than one window ahead of the reader. Each chunk is checked against the
 * list and opened before it is given out; a chunk nobody has makes the reader wait as a whole
 * read does.
 */
import { MincaError } from '../errors.js';
import type { FileRef } from '../file-ref.js';
import { type AbortSignalLike, checkAborted } from './abort.js';
import { CHUNK_BYTES, openChunk } from './chunks.js';
import type { FetchResult } from './fetch.js';
import type { FileActivity } from './file-activity.js';
import type { FileStore } from './file-store.js';
import type { FileSource } from './source.js';
import { StopSignal } from './stop-signal.js';

/** Chunks asked per fetch of a range read (8 MiB): at most two windows are in memory. */
export const WINDOW_CHUNKS = 32;

/** What a range read needs of its space's files. */
export interface RangeReadContext {
  files: FileStore;
  activity: FileActivity;
  sources(): FileSource[];
  /** Throws `closed` once the space has closed. */
  check(): void;
  /** A count of the news below, to tell whether any came since. */
  news(): number;
  /**
   * Resolves when records change, a peer links, or after a while, at once if that happened
   * since `seen` (a {@link news} count); rejects on `signal`.
   */
  waitForNews(signal: AbortSignalLike, seen: number): Promise<void>;
  /** A read of `id` ended: `finished` when it went through its whole range. */
  ended(id: string, finished: boolean): Promise<void>;
}

export interface RangeReadOptions {
  signal?: AbortSignalLike;
  /** Bytes of the range given out so far, of the range's length. */
  onProgress?: (progress: { done: number; total: number }) => void;
}

/** Plaintext bytes `[offset, end)` of the file `ref` names, one piece per chunk, in order. */
export class RangeReader implements AsyncIterableIterator<Uint8Array> {
  readonly #stop: StopSignal;
  /** The next chunk to give out, and the last one to. */
  #n: number;
  readonly #last: number;
  /** Chunks fetched for this read and not given out yet, checked. */
  readonly #arrived = new Map<number, Uint8Array>();
  /** The fetch under way, and the last chunk its window (or an earlier one) covers. */
  #fetching: Promise<void> | undefined;
  #covered: number;
  /** The chunk a fetch began at that ended without it: the next try waits for news first. */
  #missedAt: number | undefined;
  /** The news count when that fetch began. */
  #missedNews = 0;
  #failure: unknown;
  #wake: (() => void) | undefined;
  #given = 0;
  #started = false;
  #done = false;
  /** `next` calls run one after another. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly context: RangeReadContext,
    private readonly ref: FileRef,
    private readonly offset: number,
    private readonly end: number,
    private readonly options: RangeReadOptions = {},
  ) {
    this.#stop = new StopSignal(options.signal);
    this.#stop.addEventListener('abort', () => this.#poke());
    this.#n = Math.floor(offset / CHUNK_BYTES);
    this.#last = end > offset ? Math.floor((end - 1) / CHUNK_BYTES) : this.#n - 1;
    this.#covered = this.#n - 1;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    const run = this.#queue.then(() => this.#next());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Stops the read: what is under way is let go of, and the file is unpinned. */
  async return(): Promise<IteratorResult<Uint8Array>> {
    this.#stop.stop();
    await this.#queue;
    await this.#end(false);
    return { done: true, value: undefined };
  }

  async #next(): Promise<IteratorResult<Uint8Array>> {
    if (this.#done) return { done: true, value: undefined };
    if (!this.#started) {
      this.#started = true;
      this.context.activity.pin(this.ref.$file);
      this.#tell();
    }
    try {
      if (this.#n > this.#last) {
        await this.#end(true);
        return { done: true, value: undefined };
      }
      const n = this.#n;
      const plain = openChunk(this.ref.key, this.ref.size, n, await this.#sealed(n));
      this.#n++;
      const from = Math.max(0, this.offset - n * CHUNK_BYTES);
      const to = Math.min(plain.length, this.end - n * CHUNK_BYTES);
      const piece = from === 0 && to === plain.length ? plain : plain.subarray(from, to);
      this.#given += piece.length;
      this.#tell();
      this.#ahead();
      return { done: false, value: piece };
    } catch (error) {
      await this.#end(false);
      throw error;
    }
  }

  #tell(): void {
    this.options.onProgress?.({ done: this.#given, total: this.end - this.offset });
  }

  async #end(finished: boolean): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    this.#stop.stop();
    this.#arrived.clear();
    await this.#fetching;
    if (!this.#started) return;
    this.context.activity.unpin(this.ref.$file);
    await this.context.ended(this.ref.$file, finished);
  }

  /** Sealed chunk `n`, checked: fetched for this read, or held, or fetched now. */
  async #sealed(n: number): Promise<Uint8Array> {
    const { files } = this.context;
    const id = this.ref.$file;
    for (;;) {
      this.context.check();
      checkAborted(this.#stop);
      if (this.#failure) throw this.#failure;
      const got = this.#arrived.get(n);
      if (got) {
        this.#arrived.delete(n);
        return got;
      }
      const file = files.get(id);
      if (file?.list && file.list.size !== this.ref.size)
        throw new MincaError(
          'invalid_input',
          `file ${id} won't open as named: its size is not the one named`,
        );
      if (file?.held.has(n)) {
        const sealed = await files.chunk(id, n);
        if (sealed) return sealed;
        continue; // damaged here and forgotten: fetched again
      }
      if (!this.#fetching) {
        if (this.#missedAt === n) {
          this.#missedAt = undefined;
          await this.context.waitForNews(this.#stop, this.#missedNews);
          continue;
        }
        this.#fetch(n);
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  /** Once the reader is within a window of the chunks covered, the next window is asked. */
  #ahead(): void {
    if (this.#fetching || this.#failure || this.#covered >= this.#last) return;
    if (this.#covered + 1 - this.#n > WINDOW_CHUNKS) return;
    this.#fetch(this.#covered + 1);
  }

  /** Fetches the chunks from `from` on, one window's worth, that are neither held nor here. */
  #fetch(from: number): void {
    const held = this.context.files.get(this.ref.$file)?.held;
    const to = Math.min(this.#last, from + WINDOW_CHUNKS - 1);
    const only: number[] = [];
    for (let k = from; k <= to; k++) if (!held?.has(k) && !this.#arrived.has(k)) only.push(k);
    this.#covered = Math.max(this.#covered, to);
    if (only.length === 0) {
      this.#ahead();
      return;
    }
    const news = this.context.news();
    const fetched = this.context.activity.fetch(this.ref.$file, () => this.context.sources(), {
      only,
      signal: this.#stop,
      proceed: (list) => list.size === this.ref.size,
      onChunk: (k, sealed) => {
        if (k >= this.#n && k <= this.#last && !this.#done) this.#arrived.set(k, sealed);
        if (k === this.#n) this.#poke();
      },
    });
    this.#fetching = fetched.then(
      (result: FetchResult) => this.#fetched(from, only, news, result),
      (error) => this.#fetched(from, only, news, undefined, error),
    );
  }

  #fetched(
    from: number,
    only: number[],
    news: number,
    result?: FetchResult,
    error?: unknown,
  ): void {
    this.#fetching = undefined;
    if (error !== undefined && !this.#stop.aborted) this.#failure = error;
    // Chunks it could not get are asked again when the reader gets to them.
    if (result !== 'whole') this.#covered = Math.min(this.#covered, from - 1);
    if (result === 'nobody' && only.includes(this.#n)) {
      this.#missedAt = this.#n;
      this.#missedNews = news;
    }
    this.#poke();
    if (result === 'whole' && !this.#done) this.#ahead();
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
