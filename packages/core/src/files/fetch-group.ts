/**
 * One round of a fetch: a group of sources asked at once for the chunks of one file (spec 05
 * §16.6.6). Each source is asked for the list if it isn't held, then for chunks, at most
 * {@link ASKS_PER_SOURCE} requests of {@link CHUNKS_PER_ASK} out at a time, the chunks handed
 * out by a {@link ChunkSchedule}. Every answer is checked whole before anything in it is
 * stored; a source that sends what doesn't check out, fails or stalls is dropped for this
 * fetch and its chunks are asked of the others; one that lacks a chunk is asked no more.
 */
import { MincaError } from '../errors.js';
import { clearTimer, setTimer } from '../timers.js';
import { chunkChecks } from './chunk-hash.js';
import { ChunkSchedule } from './chunk-schedule.js';
import { type ChunkList, decodeList } from './chunks.js';
import type { FetchOptions } from './fetch.js';
import type { FileStore } from './file-store.js';
import type { FileSource } from './source.js';
import { StopSignal } from './stop-signal.js';

/** Chunks asked of a source at once: a peer serves at most this many per request. */
export const CHUNKS_PER_ASK = 4;
/** Requests out at once per source: one being answered and one ahead, so a link never idles. */
export const ASKS_PER_SOURCE = 2;
/**
 * A chunk asked this long ago (or four times the usual answer time, if longer) and not
 * answered may be asked of another source that has nothing left to do.
 */
export const LATE_AFTER_MS = 1_000;
/** Answer times kept to judge what "usual" is. */
const TIMES_KEPT = 16;

/** What the rounds of one fetch share. */
export interface FetchShared {
  /** Whether `proceed` was asked already (it is asked once per fetch). */
  proceeded: boolean;
}

/** How a round ended: `stopped` when `proceed` said no, else `ended` (whole or not). */
export type GroupResult = 'ended' | 'stopped';

interface Run {
  source: FileSource;
  /**
   * listing: its list is awaited (it may be asked chunks meanwhile, once a list is held);
   * asking: it is asked chunks; lacking: it lacked one; done.
   */
  state: 'listing' | 'asking' | 'lacking' | 'done';
  /** Requests out, its list request among them. */
  asks: number;
  /** Its answers being checked and stored. */
  checking: number;
}

/** Calls a source, turning a synchronous throw into a rejection. */
const call = <T>(work: () => Promise<T>): Promise<T> =>
  new Promise<T>((resolve) => resolve(work()));

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class GroupFetch {
  readonly #stop: StopSignal;
  readonly #runs: Run[];
  #list: ChunkList | undefined;
  #listReady: Promise<void> | undefined;
  #schedule: ChunkSchedule<FileSource> | undefined;
  /** Chunks being stored now, so a second copy of one is not stored or told twice. */
  readonly #storing = new Set<number>();
  /** Lists and answers being checked and stored. */
  #working = 0;
  readonly #times: number[] = [];
  #timer: unknown;
  #ended = false;
  #settle: { resolve: (r: GroupResult) => void; reject: (e: unknown) => void } | undefined;
  readonly #onAbort = () => this.#fail(new MincaError('aborted', 'the file operation was aborted'));

  constructor(
    private readonly files: FileStore,
    private readonly id: string,
    sources: readonly FileSource[],
    private readonly options: FetchOptions,
    private readonly shared: FetchShared,
  ) {
    this.#stop = new StopSignal(options.signal);
    this.#runs = [...new Set(sources)].map((source) => ({
      source,
      state: 'asking',
      asks: 0,
      checking: 0,
    }));
  }

  run(): Promise<GroupResult> {
    return new Promise<GroupResult>((resolve, reject) => {
      this.#settle = { resolve, reject };
      const { signal } = this.options;
      if (signal?.aborted) {
        this.#onAbort();
        return;
      }
      signal?.addEventListener('abort', this.#onAbort);
      try {
        const list = this.files.get(this.id)?.list;
        if (list && !this.#accept(list)) return;
        for (const run of this.#runs) {
          if (this.#ended) return;
          this.options.onSource?.(run.source);
          if (list) this.#pump(run);
          else this.#askList(run);
        }
        this.#check();
      } catch (error) {
        this.#fail(error);
      }
    });
  }

  // ——— the list ———

  #askList(run: Run): void {
    run.state = 'listing';
    run.asks++;
    call(() => run.source.list(this.id, this.#stop)).then(
      (bytes) => {
        run.asks--;
        this.#gotList(run, bytes);
      },
      (error) => {
        run.asks--;
        this.#refuse(run, error);
      },
    );
  }

  #gotList(run: Run, bytes: Uint8Array | null): void {
    if (this.#ended || run.state === 'done') return;
    if (bytes === null) {
      // It doesn't have the file: what it was asked meanwhile goes to the others.
      if (run.state === 'listing') {
        run.state = 'done';
        this.#reassign(run);
      } else this.#check();
      return;
    }
    let list: ChunkList;
    try {
      list = decodeList(bytes, this.id);
    } catch (error) {
      this.#drop(run, messageOf(error));
      return;
    }
    // Any list that hashes to the id is the list: the first one in is stored and judged.
    this.#listReady ??= this.#takeList(list);
    this.#work(
      this.#listReady.then(() => {
        if (this.#ended || run.state !== 'listing') return;
        run.state = 'asking';
        // Every source still listing is asked too: a slow list answer must not leave a source
        // idle while the others take the whole file.
        this.#pumpAll();
      }),
    );
  }

  async #takeList(list: ChunkList): Promise<void> {
    await this.files.putList(list);
    if (!this.#ended) this.#accept(this.files.get(this.id)?.list ?? list);
  }

  /** The list is known: asks `proceed` once per fetch, then lays out what is missing. */
  #accept(list: ChunkList): boolean {
    this.#list = list;
    if (!this.shared.proceeded) {
      this.shared.proceeded = true;
      if (this.options.proceed && !this.options.proceed(list)) {
        this.#end('stopped');
        return false;
      }
    }
    const held = this.files.get(this.id)?.held ?? new Set<number>();
    const missing: number[] = [];
    const { only } = this.options;
    if (only) {
      for (const n of only) if (n >= 0 && n < list.hashes.length && !held.has(n)) missing.push(n);
    } else for (let n = 0; n < list.hashes.length; n++) if (!held.has(n)) missing.push(n);
    this.#schedule = new ChunkSchedule(missing);
    return true;
  }

  // ——— chunks ———

  /**
   * Whether `run` may be sent another request: it is asking (or listing, its list request
   * counted among its requests out), with fewer than {@link ASKS_PER_SOURCE} out. One answer may
   * be checked while the next requests are out, no more: a source whose answers turn out wrong
   * has been asked at most that much before it is dropped.
   */
  #hasRoom(run: Run): boolean {
    return (
      (run.state === 'asking' || run.state === 'listing') &&
      run.asks < ASKS_PER_SOURCE &&
      run.asks + run.checking <= ASKS_PER_SOURCE
    );
  }

  /** Asks `run` for chunks until it has {@link ASKS_PER_SOURCE} requests out or none is left. */
  #pump(run: Run): void {
    const schedule = this.#schedule;
    if (this.#ended || !schedule) return;
    while (this.#hasRoom(run)) {
      const now = Date.now();
      const batch = schedule.take(run.source, CHUNKS_PER_ASK, now, now - this.#lateAfter());
      if (batch.length === 0) break;
      this.#ask(run, batch, now);
    }
  }

  #pumpAll(): void {
    for (const run of this.#runs) this.#pump(run);
  }

  #ask(run: Run, batch: number[], at: number): void {
    run.asks++;
    const { source } = run;
    call(() =>
      source.chunks
        ? source.chunks(this.id, batch, this.#stop)
        : Promise.all(batch.map((n) => source.chunk(this.id, n, this.#stop))),
    ).then(
      (got) => this.#answered(run, batch, at, got),
      (error) => {
        run.asks--;
        this.#refuse(run, error);
      },
    );
  }

  #answered(run: Run, batch: number[], at: number, got: unknown): void {
    run.asks--;
    if (this.#ended) return;
    if (run.state === 'done') {
      this.#check(); // dropped meanwhile: a late answer is dropped
      return;
    }
    this.#times.push(Date.now() - at);
    if (this.#times.length > TIMES_KEPT) this.#times.shift();
    if (!Array.isArray(got) || got.length !== batch.length) {
      this.#drop(run, `sent ${Array.isArray(got) ? got.length : 'no'} chunks for ${batch.length}`);
      return;
    }
    const chunks = got as Array<Uint8Array | null | undefined>;
    run.checking++;
    // It lacks part of the file: asked no more, the others are asked for the rest.
    if (chunks.some((c) => c === null || c === undefined)) run.state = 'lacking';
    // The next request goes before this answer is checked, so the source keeps busy.
    else this.#pump(run);
    this.#work(
      this.#store(run, batch, chunks).then(
        () => {
          run.checking--;
          this.#pumpAll();
        },
        (error) => {
          run.checking--;
          throw error;
        },
      ),
    );
  }

  /** Checks a whole answer, then stores the chunks still missing; one bad chunk drops it all. */
  async #store(run: Run, batch: number[], got: Array<Uint8Array | null | undefined>) {
    const list = this.#list!;
    const schedule = this.#schedule!;
    const checks = await Promise.all(
      batch.map((n, i) => (got[i] ? chunkChecks(list, n, got[i]!) : true)),
    );
    // Dropped meanwhile (another answer of its was wrong): nothing more of it is taken.
    if (this.#ended || run.state === 'done') return;
    const wrong = checks.indexOf(false);
    if (wrong >= 0) {
      this.#drop(run, `chunk ${batch[wrong]} does not match the chunk list`);
      return;
    }
    const fresh: Array<[number, Uint8Array]> = [];
    for (let i = 0; i < batch.length; i++) {
      const sealed = got[i];
      const n = batch[i]!;
      if (sealed && schedule.isMissing(n) && !this.#storing.has(n)) fresh.push([n, sealed]);
    }
    for (const [n] of fresh) this.#storing.add(n);
    try {
      await this.files.putChunks(this.id, fresh);
    } finally {
      for (const [n] of fresh) this.#storing.delete(n);
    }
    for (const [n] of fresh) schedule.held(n);
    if (this.#ended) return;
    for (const [n, sealed] of fresh) this.options.onChunk?.(n, sealed);
    this.options.onChunks?.();
    // What it lacked (or sent after another) is asked of the others.
    schedule.release(run.source, batch);
  }

  // ——— sources that fail ———

  #refuse(run: Run, error: unknown): void {
    if (this.#ended) return;
    if (this.options.signal?.aborted) this.#onAbort();
    else this.#drop(run, messageOf(error));
  }

  /** Drops a source for this fetch: nothing more it sends is taken; its chunks go to others. */
  #drop(run: Run, why: string): void {
    if (this.#ended || run.state === 'done') return;
    run.state = 'done';
    try {
      this.options.onRefused?.(run.source, why);
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.#reassign(run);
  }

  /** What `run` (now done) was asked and hasn't answered goes to the others. */
  #reassign(run: Run): void {
    const schedule = this.#schedule;
    schedule?.release(run.source, schedule.askedOf(run.source));
    this.#pumpAll();
    this.#check();
  }

  // ——— timing and the end ———

  /** How long an unanswered chunk waits before another source may be asked for it. */
  #lateAfter(): number {
    if (this.#times.length === 0) return LATE_AFTER_MS;
    const sorted = [...this.#times].sort((a, b) => a - b);
    return Math.max(LATE_AFTER_MS, 4 * sorted[sorted.length >> 1]!);
  }

  /** When a source has room and a chunk asked of another will turn late, wakes up then. */
  #armLate(): void {
    if (this.#timer !== undefined) clearTimer(this.#timer);
    this.#timer = undefined;
    const schedule = this.#schedule;
    if (this.#ended || !schedule || schedule.done) return;
    const idle = this.#runs.filter((r) => this.#hasRoom(r));
    if (idle.length === 0) return;
    const at = schedule.nextLate(this.#lateAfter(), (asked) =>
      idle.some((r) => r.source !== asked),
    );
    if (at === undefined) return;
    this.#timer = setTimer(
      () => {
        this.#timer = undefined;
        this.#pumpAll();
        this.#check();
      },
      Math.max(1, at - Date.now() + 1),
    );
  }

  /** Counts `work` (checking, storing) as under way; a failure in it ends the fetch. */
  #work(work: Promise<void>): void {
    this.#working++;
    work.then(
      () => {
        this.#working--;
        this.#check();
      },
      (error) => {
        this.#working--;
        this.#fail(error);
      },
    );
  }

  /** Ends the round once the file is whole, or no source can give anything more. */
  #check(): void {
    if (this.#ended || this.#working > 0) return;
    if (this.#schedule?.done) {
      this.#end('ended');
      return;
    }
    const live = this.#runs.some(
      (r) => r.state === 'listing' || (r.state !== 'done' && r.asks > 0),
    );
    if (!live) this.#end('ended');
    else this.#armLate();
  }

  #finish(): void {
    this.#ended = true;
    if (this.#timer !== undefined) clearTimer(this.#timer);
    this.#timer = undefined;
    this.options.signal?.removeEventListener('abort', this.#onAbort);
    this.#stop.stop();
  }

  #end(result: GroupResult): void {
    if (this.#ended) return;
    this.#finish();
    this.#settle?.resolve(result);
  }

  #fail(error: unknown): void {
    if (this.#ended) return;
    this.#finish();
    this.#settle?.reject(error);
  }
}
