/**
 * One open space's files: adding and reading them, fetching ahead what records name, dropping
 * what nothing names or what is past the limits, and answering peers. Spec 05 §16.6.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { MincaError } from '../errors.js';
import { type FileRef, isFileRef } from '../file-ref.js';
import { randomKey } from '../seal.js';
import type { Store } from '../store.js';
import type { FileAnswer, FileAsk, Peer } from '../sync/peer.js';
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
  sealedSize,
} from './chunks.js';
import { type FetchOptions, type FetchResult, fetchFile } from './fetch.js';
import { FileStore, type HeldFile } from './file-store.js';
import {
  FILES_AFTER_CHANGE_MS,
  type FileLimits,
  KEEP_DOWN_TO,
  NOBODY_HAD_MS,
  READ_RETRY_MS,
  UNNAMED_OWN_MS,
} from './limits.js';
import { type FileSource, PeerFileSource } from './source.js';

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

/**
 * The space whose files these are: an open space, or a space a host holds without its key.
 * `OpenSpace` is one.
 */
export interface FilesSpace {
  readonly id: string;
  readonly store: Store;
  subscribe(listener: (change: { space: string; collections: string[] }) => void): () => void;
  /**
   * Whether `author` may write now, so its records stand. Without it (a holder, which can't
   * read membership) every live head counts: what it took in was checked when it came.
   */
  mayWrite?(author: string): Promise<boolean>;
}

/** What a space's files need of the node. */
export interface SpaceFilesContext {
  now(): number;
  limits(): FileLimits;
  /** `fetchFiles: 'all'`: fetch and keep every named file (carriers, hosts). */
  fetchAll: boolean;
  /** Where to fetch from, in order: connected peers first, then the node's other sources. */
  sources(): FileSource[];
  /** The set of files held whole or named here may have changed. */
  changed(): void;
}

/** Chunks written per store commit when adding a file: progress and abort checks between. */
const CHUNKS_PER_WRITE = 16;
const MAX_LABEL = 1_000;
/** How long a request waits for a fetch of the same file under way here: within the asker's timeout. */
const SERVE_WAIT_MS = 10_000;

export class SpaceFiles {
  #passTimer: unknown;
  /** When the first change not yet passed over came. */
  #firstChange: number | undefined;
  #passing: Promise<void> | undefined;
  #passAgain = false;
  #closed = false;
  #named: Set<string> | undefined;
  /** Files nobody had when fetched ahead, and when. */
  readonly #nobodyHad = new Map<string, number>();
  /** Files being read or fetched: never dropped meanwhile. */
  readonly #pinned = new Map<string, number>();
  /** The source each fetch under way is asking now. */
  readonly #askingNow = new Map<string, FileSource>();
  /** One fetch per file at a time. */
  readonly #busy = new Map<string, Promise<unknown>>();
  readonly #waiters = new Set<{ wake: () => void; fail: (e: unknown) => void }>();

  private constructor(
    readonly space: FilesSpace,
    readonly files: FileStore,
    private readonly context: SpaceFilesContext,
  ) {}

  static async open(space: FilesSpace, context: SpaceFilesContext): Promise<SpaceFiles> {
    const files = new SpaceFiles(space, await FileStore.open(space.store), context);
    files.#schedule(FILES_AFTER_CHANGE_MS);
    return files;
  }

  // ——— events ———

  /**
   * Records changed: reads waiting ask again now; ahead and drops run about 2 s after the last
   * change (a steady stream of changes still gets a pass every 4 s), so a relay that took the
   * records in first has started its own fetch when this node asks it.
   */
  recordsChanged(): void {
    this.#named = undefined;
    this.#wake();
    const now = this.context.now();
    this.#firstChange ??= now;
    const wait = Math.min(
      FILES_AFTER_CHANGE_MS,
      this.#firstChange + 2 * FILES_AFTER_CHANGE_MS - now,
    );
    this.#schedule(Math.max(0, wait), true);
  }

  /** Another process wrote the store: what is held is read again, and reads ask again. */
  async reloaded(): Promise<void> {
    await this.files.reload();
    this.recordsChanged();
  }

  /** A peer now shares the space: waiting reads ask again, and files nobody had are asked of it. */
  peerLinked(source: FileSource): void {
    this.#wake();
    void this.#askNewPeer(source).catch(() => undefined);
  }

  /** New limits: applied now (dropping past `keep`, fetching what now fits `ahead`). */
  limitsChanged(delayMs: number): void {
    this.#schedule(delayMs);
    // Past keep, files go at once, even while a pass is busy fetching ahead.
    setTimer(() => {
      if (!this.#closed) void this.#keepWithinLimit().catch(() => undefined);
    }, delayMs);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#passTimer !== undefined) clearTimer(this.#passTimer);
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
    this.#pin(id);
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
      this.#unpin(id);
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
    this.#pin(id);
    try {
      for (;;) {
        this.#check();
        checkAborted(signal);
        const file = this.files.get(id);
        if (file?.list && file.list.size !== ref.size)
          throw wrongFile(id, 'its size is not the one named');
        if (!this.files.isWhole(id)) {
          await this.#exclusive(id, () =>
            this.#fetch(id, this.context.sources(), {
              ...(signal ? { signal } : {}),
              onChunks: progress,
              onChunk: openFetched,
              proceed: (list) => list.size === ref.size,
            }),
          );
          const fetched = this.files.get(id);
          if (fetched?.list && fetched.list.size !== ref.size)
            throw wrongFile(id, 'its size is not the one named');
        }
        if (this.files.isWhole(id)) {
          const bytes = await this.#open(id, ref, out, opened);
          if (bytes) {
            await this.files.setUsed(id, this.context.now());
            this.#nobodyHad.delete(id);
            progress();
            return bytes;
          }
          continue; // A chunk was damaged here and is forgotten: fetch it again.
        }
        await this.#waitForNews(signal);
      }
    } finally {
      this.#unpin(id);
      await this.#afterRead(id).catch(() => undefined);
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

  /** A file bigger than `keep` goes once read; the rest of the limit is checked soon. */
  async #afterRead(id: string): Promise<void> {
    if (this.#closed || this.context.fetchAll) return;
    const file = this.files.get(id);
    if (
      file &&
      file.own === undefined &&
      !this.#pinned.has(id) &&
      file.list &&
      sealedSize(file.list.size) > this.context.limits().keep
    ) {
      await this.files.drop(id, false);
      this.context.changed();
    }
    this.#schedule(0);
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
  async serve(ask: FileAsk, from?: Peer): Promise<FileAnswer> {
    // Being fetched here right now (a relay, a host): answer once that fetch is done, so the
    // asker doesn't conclude nobody has it and wait 10 minutes. Not when the fetch is asking
    // the asker itself: two peers would wait on each other.
    const busy = this.#busy.get(ask.id);
    const asking = this.#askingNow.get(ask.id);
    const mutual = asking instanceof PeerFileSource && asking.peer === from;
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

  // ——— what is named, kept and fetched ———

  /** Files named by the live heads of records that stand. */
  async named(): Promise<Set<string>> {
    if (this.#named) return this.#named;
    const store = this.space.store;
    const named = new Set<string>();
    const mayWrite = async (author: string) => (await this.space.mayWrite?.(author)) ?? true;
    for (const name of store.collectionNames()) {
      for (const record of store.collection(name)!.records.values()) {
        const winner = record.winner();
        if (!winner || winner.deleted || !(await mayWrite(winner.author))) continue;
        for (const meta of record.heads) {
          if (meta.deleted || meta.files.length === 0) continue;
          if (meta !== winner && !(await mayWrite(meta.author))) continue;
          for (const f of meta.files) named.add(f);
        }
      }
    }
    this.#named = named;
    return named;
  }

  /** Runs a pass `ms` from now, unless one is due sooner; `postpone` moves a pending one. */
  #schedule(ms: number, postpone = false): void {
    if (this.#closed) return;
    if (this.#passTimer !== undefined) {
      if (ms > 0 && !postpone) return;
      clearTimer(this.#passTimer);
    }
    this.#passTimer = setTimer(() => {
      this.#passTimer = undefined;
      this.#firstChange = undefined;
      void this.pass().catch(() => undefined);
    }, ms);
  }

  /** Drops what nothing names, keeps within the limits, and fetches ahead. One at a time. */
  async pass(): Promise<void> {
    if (this.#passing) {
      this.#passAgain = true;
      return this.#passing;
    }
    this.#passing = (async () => {
      do {
        this.#passAgain = false;
        if (this.#closed) return;
        await this.#dropUnnamed();
        await this.#keepWithinLimit();
        await this.#fetchAhead();
        await this.#keepWithinLimit();
        // What is named may have changed with the records, even where nothing was fetched.
        this.context.changed();
      } while (this.#passAgain && !this.#closed);
    })().finally(() => {
      this.#passing = undefined;
    });
    return this.#passing;
  }

  async #dropUnnamed(): Promise<void> {
    const named = await this.named();
    const now = this.context.now();
    let changed = false;
    for (const file of [...this.files.all()]) {
      if (named.has(file.id)) {
        // Named now: from here on it follows records like any other.
        if (file.own !== undefined && file.own > 0) await this.files.setOwn(file.id, 0);
        continue;
      }
      if (this.#pinned.has(file.id)) continue;
      if (file.own !== undefined && file.own > 0 && now - file.own < UNNAMED_OWN_MS) continue;
      await this.files.drop(file.id, true);
      this.#nobodyHad.delete(file.id);
      changed = true;
    }
    if (changed) this.context.changed();
  }

  /** Bytes of files this device didn't add. */
  #limited(): HeldFile[] {
    return [...this.files.all()].filter((f) => f.own === undefined && f.bytes > 0);
  }

  async #keepWithinLimit(): Promise<void> {
    if (this.context.fetchAll) return;
    const keep = this.context.limits().keep;
    const limited = this.#limited();
    let total = limited.reduce((sum, f) => sum + f.bytes, 0);
    if (total <= keep) return;
    const target = keep * KEEP_DOWN_TO;
    const whole = (f: HeldFile) => (this.files.isWhole(f.id) ? 1 : 0);
    const order = limited
      .filter((f) => !this.#pinned.has(f.id))
      .sort((a, b) => whole(a) - whole(b) || (a.used ?? 0) - (b.used ?? 0));
    for (const file of order) {
      if (total <= target) break;
      total -= file.bytes;
      await this.files.drop(file.id, false);
    }
    this.context.changed();
  }

  async #fetchAhead(): Promise<void> {
    const now = this.context.now();
    for (const id of [...(await this.named())]) {
      if (this.#closed) return;
      if (this.files.isWhole(id)) continue;
      if (!this.context.fetchAll && this.files.wasDropped(id)) continue;
      const had = this.#nobodyHad.get(id);
      if (had !== undefined && now - had < NOBODY_HAD_MS) continue;
      const result = await this.#fetchUnread(id, this.context.sources());
      if (result === 'nobody') this.#nobodyHad.set(id, this.context.now());
    }
  }

  /** Fetches a file nobody is reading, if it fits the limits. */
  async #fetchUnread(id: string, sources: FileSource[]): Promise<string> {
    if (sources.length === 0) return 'nobody';
    this.#pin(id);
    try {
      const result = await this.#exclusive(id, () =>
        this.#fetch(id, sources, { proceed: (list) => this.#fits(id, list.size) }),
      );
      if (result === 'whole') {
        await this.files.setUsed(id, this.context.now());
        this.#nobodyHad.delete(id);
        this.context.changed();
      }
      return result;
    } finally {
      this.#unpin(id);
    }
  }

  /** Whether a file of `size` is fetched unread: up to `ahead`, and within `keep` with the rest. */
  #fits(id: string, size: number): boolean {
    if (this.context.fetchAll) return true;
    const { ahead, keep } = this.context.limits();
    if (size > ahead) return false;
    const others = this.#limited().reduce((sum, f) => (f.id === id ? sum : sum + f.bytes), 0);
    return others + sealedSize(size) <= keep;
  }

  async #askNewPeer(source: FileSource): Promise<void> {
    for (const id of [...this.#nobodyHad.keys()]) {
      if (this.#closed) return;
      if (this.files.isWhole(id) || !(await this.named()).has(id)) {
        this.#nobodyHad.delete(id);
        continue;
      }
      await this.#fetchUnread(id, [source]);
    }
  }

  // ——— helpers ———

  #check(): void {
    if (this.#closed) throw new MincaError('closed', `space ${this.space.id} is closed`);
  }

  #pin(id: string): void {
    this.#pinned.set(id, (this.#pinned.get(id) ?? 0) + 1);
  }

  #unpin(id: string): void {
    const n = (this.#pinned.get(id) ?? 1) - 1;
    if (n <= 0) this.#pinned.delete(id);
    else this.#pinned.set(id, n);
  }

  async #fetch(id: string, sources: FileSource[], options: FetchOptions): Promise<FetchResult> {
    try {
      return await fetchFile(this.files, id, sources, {
        ...options,
        onSource: (source) => this.#askingNow.set(id, source),
      });
    } finally {
      this.#askingNow.delete(id);
    }
  }

  /** Runs `work` once every earlier fetch of the same file has ended. */
  async #exclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    const before = this.#busy.get(id) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.catch(() => undefined);
    this.#busy.set(id, settled);
    void settled.then(() => {
      if (this.#busy.get(id) === settled) this.#busy.delete(id);
    });
    return run;
  }

  /** Every file held whole here, for mirrors. */
  whole(): string[] {
    return [...this.files.all()].filter((f) => this.files.isWhole(f.id)).map((f) => f.id);
  }
}

const wrongFile = (id: string, why: string) =>
  new MincaError('invalid_input', `file ${id} won't open as named: ${why}`);
