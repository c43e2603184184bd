/**
 * One open space's files: adding and reading them, answering peers, and what mirrors see. What
 * the device keeps of them is the {@link KeepPolicy}'s. Spec 05 §16.6.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { MincaError } from '../errors.js';
import { type FileRef, isFileRef } from '../file-ref.js';
import { randomKey } from '../seal.js';
import type { SpaceView } from '../space/space-view.js';
import { clearTimer, setTimer } from '../timers.js';
import { type AbortSignalLike, checkAborted } from './abort.js';
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
import { FileStore } from './file-store.js';
import { KeepPolicy, type SpaceFilesContext } from './keep-policy.js';
import { FILES_AFTER_CHANGE_MS, READ_RETRY_MS } from './limits.js';
import { type FileSource, PeerFileSource } from './source.js';

export type { SpaceFilesContext } from './keep-policy.js';

/** How far a file operation has got, in plaintext bytes. */
export interface FileProgress {
  done: number;
  total: number;
}

export interface AddFileOptions {
  mime?: string;
  name?: string;
  onProgress?: (progress: FileProgress) => void;
  signal?: AbortSignalLike;
}

export interface ReadFileOptions {
  onProgress?: (progress: FileProgress) => void;
  signal?: AbortSignalLike;
}

/** Chunks written per store commit when adding a file: progress and abort checks between. */
const CHUNKS_PER_WRITE = 16;
const MAX_LABEL = 1_000;
/** How long a request waits for a fetch of the same file under way here: within the asker's timeout. */
const SERVE_WAIT_MS = 10_000;

export class SpaceFiles {
  #closed = false;
  readonly #activity: FileActivity;
  readonly #policy: KeepPolicy;
  readonly #waiters = new Set<{ wake: () => void; fail: (e: unknown) => void }>();

  private constructor(
    readonly space: SpaceView,
    readonly files: FileStore,
    private readonly context: SpaceFilesContext,
  ) {
    this.#activity = new FileActivity(files);
    this.#policy = new KeepPolicy(space, files, this.#activity, context);
  }

  static async open(space: SpaceView, context: SpaceFilesContext): Promise<SpaceFiles> {
    const files = new SpaceFiles(space, await FileStore.open(space.store), context);
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

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#policy.close();
    const error = new MincaError('closed', `space ${this.space.id} closed`);
    for (const w of this.#waiters) w.fail(error);
    this.#waiters.clear();
  }

  // ——— adding and reading ———

  async add(bytes: Uint8Array, options: AddFileOptions = {}): Promise<FileRef> {
    this.#check();
    if (!(bytes instanceof Uint8Array))
      throw new TypeError('addFile takes the bytes as a Uint8Array');
    if (bytes.length > MAX_FILE_BYTES)
      throw new MincaError('too_large', `a file is at most ${MAX_FILE_BYTES} bytes`);
    for (const label of ['mime', 'name'] as const) {
      const value = options[label];
      if (value !== undefined && (typeof value !== 'string' || value.length > MAX_LABEL))
        throw new MincaError('invalid_input', `${label} must be text of at most ${MAX_LABEL}`);
    }
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
    return {
      $file: id,
      key,
      size: total,
      ...(options.mime !== undefined ? { mime: options.mime } : {}),
      ...(options.name !== undefined ? { name: options.name } : {}),
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
        await this.#waitForNews(signal);
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

  #waitForNews(signal: AbortSignalLike | undefined): Promise<void> {
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
    for (const w of [...this.#waiters]) w.wake();
  }

  // ——— serving ———

  /** Answers a peer's request: the list if asked and held, and each chunk held. */
  async serve(ask: FileAsk, from?: FileChannel): Promise<FileAnswer> {
    // Being fetched here right now (a relay, a host): answer once that fetch is done, so the
    // asker doesn't conclude nobody has it and wait 10 minutes. Not when the fetch is asking
    // the asker itself: two peers would wait on each other.
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
    let sum = 0;
    for (const file of this.files.all()) sum += file.bytes;
    return sum;
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

  #check(): void {
    if (this.#closed) throw new MincaError('closed', `space ${this.space.id} is closed`);
  }
}

const wrongFile = (id: string, why: string) =>
  new MincaError('invalid_input', `file ${id} won't open as named: ${why}`);
