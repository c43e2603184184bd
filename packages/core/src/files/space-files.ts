/**
 * One open space's files: adding and reading them, answering peers, and what mirrors see. What
 * the device keeps of them is the {@link KeepPolicy}'s. Spec 05 §16.6.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { MincaError } from '../errors.js';
import { type FileRef, isFileRef } from '../file-ref.js';
import { completeNamedIndex } from '../named-files.js';
import { randomKey } from '../seal.js';
import type { SpaceView } from '../space/space-view.js';
import { clearTimer, setTimer } from '../timers.js';
import { type AbortSignalLike, checkAborted } from './abort.js';
import { type AddFileOptions, checkLabels, type FileProgress, refTo } from './add-options.js';
import {
  CHUNK_BYTES,
  chunkCount,
  decodeList,
  encodeList,
  MAX_FILE_BYTES,
  openChunk,
  plainLength,
  sealChunk,
} from './chunks.js';
import { FileActivity } from './file-activity.js';
import type { FileAnswer, FileAsk, FileChannel } from './file-channel.js';
import type { FileInput } from './file-input.js';
import { FileStore } from './file-store.js';
import { KeepPolicy, type SpaceFilesContext } from './keep-policy.js';
import { FILES_AFTER_CHANGE_MS, READ_RETRY_MS } from './limits.js';
import { OpenFile, type OpenFileContext } from './open-file.js';
import { type FileSource, PeerFileSource } from './source.js';
import { addFromInput, CHUNKS_PER_WRITE } from './stream-add.js';

export type { AddFileOptions, FileProgress } from './add-options.js';
export type { SpaceFilesContext } from './keep-policy.js';

export interface ReadFileOptions {
  onProgress?: (progress: FileProgress) => void;
  signal?: AbortSignalLike;
}

/** How long a request waits for a fetch of the same file under way here: within the asker's timeout. */
const SERVE_WAIT_MS = 10_000;

export class SpaceFiles {
  #closed = false;
  readonly #activity: FileActivity;
  readonly #policy: KeepPolicy;
  readonly #waiters = new Set<{ wake: () => void; fail: (e: unknown) => void }>();
  /** Counts the news that wakes waiting reads: records changed, a peer linked. */
  #news = 0;

  private constructor(
    readonly space: SpaceView,
    readonly files: FileStore,
    private readonly context: SpaceFilesContext,
  ) {
    this.#activity = new FileActivity(files);
    this.#policy = new KeepPolicy(space, files, this.#activity, context);
  }

  static async open(space: SpaceView, context: SpaceFilesContext): Promise<SpaceFiles> {
    // Until a store from before `y/` entries has them, its files would all look unnamed.
    await completeNamedIndex(space.store);
    const store = await FileStore.open(space.store, context.chunks);
    const files = new SpaceFiles(space, store, context);
    files.#policy.schedule(FILES_AFTER_CHANGE_MS);
    return files;
  }

  // ——— events ———

  /** Records changed: reads waiting ask again now; the keep policy runs soon. */
  recordsChanged(): void {
    this.#wake();
    this.#policy.recordsChanged();
  }

  /** Another process wrote the store: what is held is read again, and reads ask again. */
  async reloaded(): Promise<void> {
    await this.files.reload();
    this.recordsChanged();
  }

  /** A peer now shares the space: waiting reads ask again, and files nobody had are asked of it. */
  peerLinked(source: FileSource): void {
    this.#wake();
    void this.#policy.askNewPeer(source).catch(() => undefined);
  }

  /** New limits: applied now (dropping past `keep`, fetching what now fits `ahead`). */
  limitsChanged(delayMs: number): void {
    this.#policy.limitsChanged(delayMs);
  }

  /** Drops what nothing names, keeps within the limits, and fetches ahead, now. */
  pass(): Promise<void> {
    return this.#policy.pass();
  }

  /** A file is being added, read, fetched or waited for: the space must stay open. */
  get inUse(): boolean {
    return this.#waiters.size > 0 || this.#activity.active;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#policy.close();
    if (this.#waiters.size === 0) return;
    const error = new MincaError('closed', `space ${this.space.id} closed`);
    for (const w of this.#waiters) w.fail(error);
    this.#waiters.clear();
  }

  // ——— adding and reading ———

  /** Adds a file from its bytes, or from a stream of them (see {@link addFromStream}). */
  async add(input: FileInput, options: AddFileOptions = {}): Promise<FileRef> {
    this.#check();
    if (input instanceof Uint8Array) return this.#addBytes(input, options);
    const context = { files: this.files, activity: this.#activity, now: () => this.context.now() };
    const ref = await addFromInput(context, input, options);
    this.context.changed();
    return ref;
  }

  async #addBytes(bytes: Uint8Array, options: AddFileOptions): Promise<FileRef> {
    if (bytes.length > MAX_FILE_BYTES)
      throw new MincaError('too_large', `a file is at most ${MAX_FILE_BYTES} bytes`);
    if (options.size !== undefined && options.size !== bytes.length)
      throw new MincaError('invalid_input', `size ${options.size} is not the bytes' length`);
    checkLabels(options);
    checkAborted(options.signal);
    const key = randomKey();
    const total = bytes.length;
    // Progress covers sealing then writing, each half the work. The chunks' keys need the id,
    // which needs every chunk sealed first.
    const report = (sealed: number, written: number) =>
      options.onProgress?.({
        done: Math.floor((Math.min(total, sealed) + Math.min(total, written)) / 2),
        total,
      });
    report(0, 0);
    const chunks: Uint8Array[] = [];
    const hashes: Uint8Array[] = [];
    for (let n = 0; n < chunkCount(total); n++) {
      const sealed = sealChunk(
        key,
        total,
        n,
        bytes.subarray(n * CHUNK_BYTES, (n + 1) * CHUNK_BYTES),
      );
      chunks.push(sealed);
      hashes.push(sha256(sealed));
      if ((n + 1) % CHUNKS_PER_WRITE === 0) {
        report((n + 1) * CHUNK_BYTES, 0);
        // Let the page, or the node's other work, run between groups of chunks.
        await new Promise<void>((r) => setTimer(r, 0));
        checkAborted(options.signal);
      }
    }
    const list = decodeList(encodeList(total, hashes));
    const id = list.id;
    this.#activity.pin(id);
    try {
      // Marked as added here before any chunk lands, so nothing drops a file half-written.
      await this.files.setOwn(id, this.context.now());
      await this.files.putList(list);
      for (let n = 0; n < chunks.length; n += CHUNKS_PER_WRITE) {
        checkAborted(options.signal);
        const part = chunks.slice(n, n + CHUNKS_PER_WRITE).map((c, i) => [n + i, c] as const);
        await this.files.putChunks(id, part);
        report(total, (n + part.length) * CHUNK_BYTES);
      }
      report(total, total);
    } catch (error) {
      await this.files.drop(id, true).catch(() => undefined);
      throw error;
    } finally {
      this.#activity.unpin(id);
    }
    this.context.changed();
    return refTo(id, key, total, options);
  }

  /**
   * Opens a file a record here names (or one added here) for reading by range; see
   * {@link OpenFile}. Rejects as {@link read} does for a file not named or not as named.
   */
  async open(ref: FileRef): Promise<OpenFile> {
    this.#check();
    if (!isFileRef(ref)) throw new MincaError('invalid_input', 'openFile takes a FileRef');
    const id = ref.$file;
    if (!(await this.named()).has(id) && this.files.get(id)?.own === undefined)
      throw new MincaError('invalid_input', `no record in space ${this.space.id} names file ${id}`);
    const list = this.files.get(id)?.list;
    if (list && list.size !== ref.size) throw wrongFile(id, 'its size is not the one named');
    return new OpenFile(this.#ranges(), ref);
  }

  /** What reads by range need of this space's files. */
  #ranges(): OpenFileContext {
    return {
      files: this.files,
      activity: this.#activity,
      sources: () => this.context.sources(),
      check: () => this.#check(),
      news: () => this.#news,
      waitForNews: (signal, seen) => this.#waitForNews(signal, seen),
      ended: async (id, finished) => {
        if (finished && this.files.isWhole(id)) {
          await this.files.setUsed(id, this.context.now());
          this.#policy.had(id);
        }
        await this.#policy.afterRead(id).catch(() => undefined);
      },
      closed: (id) => this.#policy.afterRead(id).catch(() => undefined),
    };
  }

  async read(ref: FileRef, options: ReadFileOptions = {}): Promise<Uint8Array> {
    this.#check();
    if (!isFileRef(ref)) throw new MincaError('invalid_input', 'readFile takes a FileRef');
    const { signal, onProgress } = options;
    checkAborted(signal);
    const id = ref.$file;
    if (!(await this.named()).has(id) && this.files.get(id)?.own === undefined)
      throw new MincaError('invalid_input', `no record in space ${this.space.id} names file ${id}`);
    const progress = () => {
      const file = this.files.get(id);
      if (!onProgress || !file?.list) return;
      let done = 0;
      for (const n of file.held) done += plainLength(file.list.size, n);
      onProgress({ done, total: ref.size });
    };
    // Chunks fetched now are opened as they arrive, so they aren't read back and hashed again.
    const out = new Uint8Array(ref.size);
    const opened = new Set<number>();
    const openFetched = (n: number, sealed: Uint8Array) => {
      out.set(openChunk(ref.key, ref.size, n, sealed), n * CHUNK_BYTES);
      opened.add(n);
    };
    this.#activity.pin(id);
    try {
      for (;;) {
        this.#check();
        checkAborted(signal);
        const file = this.files.get(id);
        if (file?.list && file.list.size !== ref.size)
          throw wrongFile(id, 'its size is not the one named');
        const news = this.#news;
        if (!this.files.isWhole(id)) {
          await this.#activity.fetch(id, () => this.context.sources(), {
            ...(signal ? { signal } : {}),
            onChunks: progress,
            onChunk: openFetched,
            proceed: (list) => list.size === ref.size,
          });
          const fetched = this.files.get(id);
          if (fetched?.list && fetched.list.size !== ref.size)
            throw wrongFile(id, 'its size is not the one named');
        }
        if (this.files.isWhole(id)) {
          const bytes = await this.#open(id, ref, out, opened);
          if (bytes) {
            await this.files.setUsed(id, this.context.now());
            this.#policy.had(id);
            progress();
            return bytes;
          }
          continue; // A chunk was damaged here and is forgotten: fetch it again.
        }
        await this.#waitForNews(signal, news);
      }
    } finally {
      this.#activity.unpin(id);
      await this.#policy.afterRead(id).catch(() => undefined);
    }
  }

  /** The file's bytes, opening the chunks not opened yet; undefined when one turned out damaged. */
  async #open(
    id: string,
    ref: FileRef,
    out: Uint8Array,
    opened: ReadonlySet<number>,
  ): Promise<Uint8Array | undefined> {
    for (let n = 0; n < chunkCount(ref.size); n++) {
      if (opened.has(n)) continue;
      const sealed = await this.files.chunk(id, n);
      if (!sealed) return undefined;
      out.set(openChunk(ref.key, ref.size, n, sealed), n * CHUNK_BYTES);
    }
    return out;
  }

  /**
   * Resolves when records change, a peer links, or after {@link READ_RETRY_MS}; at once when
   * that happened since `seen` (a fetch that just missed it would otherwise wait it out).
   */
  #waitForNews(signal: AbortSignalLike | undefined, seen?: number): Promise<void> {
    if (seen !== undefined && seen !== this.#news) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        wake: () => {
          finish();
          resolve();
        },
        fail: (e: unknown) => {
          finish();
          reject(e);
        },
      };
      const onAbort = () => waiter.fail(new MincaError('aborted', 'the read was aborted'));
      const timer = setTimer(waiter.wake, READ_RETRY_MS);
      const finish = () => {
        clearTimer(timer);
        this.#waiters.delete(waiter);
        signal?.removeEventListener('abort', onAbort);
      };
      this.#waiters.add(waiter);
      signal?.addEventListener('abort', onAbort);
    });
  }

  #wake(): void {
    this.#news++;
    for (const w of [...this.#waiters]) w.wake();
  }

  // ——— serving ———

  /** Answers a peer's request: the list if asked and held, and each chunk held. */
  async serve(ask: FileAsk, from?: FileChannel): Promise<FileAnswer> {
    // Being fetched here right now (a relay, a host): answer once that fetch is done, so the
    // asker doesn't conclude nobody has it and wait 10 minutes. Not when the fetch is asking
    // the asker itself: two peers would wait on each other. A node that keeps every file (a
    // host) asked for one it will fetch anyway starts now, rather than at its next pass.
    if (
      this.context.fetchAll &&
      !this.#activity.busy(ask.id) &&
      !this.files.isWhole(ask.id) &&
      (await this.named()).has(ask.id)
    )
      this.#policy.fetchNow(ask.id);
    const busy = this.#activity.busy(ask.id);
    const mutual = [...this.#activity.askingNow(ask.id)].some(
      (source) => source instanceof PeerFileSource && source.peer === from,
    );
    if (busy && !mutual && !this.files.isWhole(ask.id)) {
      let timer: unknown;
      await Promise.race([
        busy,
        new Promise<void>((r) => {
          timer = setTimer(r, SERVE_WAIT_MS);
        }),
      ]);
      clearTimer(timer);
    }
    const file = this.files.get(ask.id);
    const chunks: Array<Uint8Array | null> = [];
    for (const n of ask.chunks) chunks.push((await this.files.chunk(ask.id, n)) ?? null);
    return { ...(ask.list && file?.list ? { list: file.list.bytes } : {}), chunks };
  }

  // ——— what mirrors and the node see ———

  /** Files named by the live heads of records that stand. */
  named(): Promise<Set<string>> {
    return this.#policy.named();
  }

  /** Every file held whole here. */
  whole(): string[] {
    return [...this.files.all()].filter((f) => this.files.isWhole(f.id)).map((f) => f.id);
  }

  /** Sealed bytes of every file chunk held here. */
  heldBytes(): number {
    return this.files.heldBytes();
  }

  /** A file's chunk list as stored, with its chunk count, if held. */
  list(id: string): { bytes: Uint8Array; chunks: number } | undefined {
    const list = this.files.get(id)?.list;
    return list && { bytes: list.bytes, chunks: list.hashes.length };
  }

  /** Sealed chunk `n` of a file, if held (checked against its list). */
  chunk(id: string, n: number): Promise<Uint8Array | undefined> {
    return this.files.chunk(id, n);
  }

  /** Calls `listener` when the files held whole or named may have changed; gives the unsubscribe. */
  subscribe(listener: () => void): () => void {
    return this.context.subscribe(listener);
  }

  /** A mirror holds file `id` whole: the shelf beside the database may let its chunks go. */
  inMirror(id: string): void {
    const file = this.files.get(id);
    if (file?.list && !file.at) this.context.chunks?.inBucket(id);
  }

  #check(): void {
    if (this.#closed) throw new MincaError('closed', `space ${this.space.id} is closed`);
  }
}

const wrongFile = (id: string, why: string) =>
  new MincaError('invalid_input', `file ${id} won't open as named: ${why}`);
