/**
 * One space mirrored to one blob store (spec 05 §16): when to pull, push and compact, one
 * operation at a time, and what `spaces.status` tells of it. The work itself is
 * {@link MirrorPull}'s, {@link MirrorPush}'s and {@link MirrorCompaction}'s.
 */
import { MincaError } from '../errors.js';
import type { SpaceView } from '../space/space-view.js';
import { clearRepeating, clearTimer, setRepeating, setTimer } from '../timers.js';
import { MirrorCompaction } from './mirror-compaction.js';
import {
  asMincaError,
  MirrorContext,
  type MirrorCounts,
  type SpaceMirrorOptions,
} from './mirror-context.js';
import { type MirroredFiles, MirrorFileSource } from './mirror-files.js';
import { MirrorPull } from './mirror-pull.js';
import { MirrorPush } from './mirror-push.js';
import type { MirrorState } from './mirror-state.js';

export {
  COMPACT_MIN_SEGMENTS,
  type MirrorCounts,
  type MirrorErrorContext,
  type SpaceMirrorOptions,
} from './mirror-context.js';

/** When the pull at open failed and nothing pulls on a period, it is tried again after this, ms. */
export const OPEN_PULL_RETRY_MS = 30_000;

/** What `spaces.status` tells of one mirror. */
export interface MirrorStatus {
  index: number;
  writer: string;
  /** This writer's own segments in the mirror, as far as it knows. */
  segments: number;
  /** When the last pull and push finished, ms. */
  pulledAt?: number;
  pushedAt?: number;
  /** The last error, if the last operation failed. */
  error?: string;
}

export class SpaceMirror {
  /** Where `readFile` may fetch this space's files from, after peers. */
  readonly fileSource: MirrorFileSource;
  readonly #mirror: MirrorContext;
  readonly #pull: MirrorPull;
  readonly #push: MirrorPush;
  readonly #compaction: MirrorCompaction;
  #unsubscribeFiles: (() => void) | undefined;
  #queue: Promise<void> = Promise.resolve();
  #pushTimer: unknown;
  #pullTimer: unknown;
  #retryTimer: unknown;
  #pullQueued = false;
  #closed = false;

  private constructor(
    space: SpaceView,
    files: MirroredFiles | undefined,
    private readonly state: MirrorState,
    private readonly options: SpaceMirrorOptions,
    now: () => number,
  ) {
    this.#mirror = new MirrorContext(space, files, state, options, now);
    this.#pull = new MirrorPull(this.#mirror);
    this.#push = new MirrorPush(this.#mirror);
    this.#compaction = new MirrorCompaction(this.#mirror, this.#push);
    this.fileSource = new MirrorFileSource(options.store, space.id, options.index);
    this.#unsubscribeFiles = files?.subscribe(() => {
      this.#push.filesChanged();
      this.changed();
    });
  }

  /** Starts mirroring: a pull now (then a push of what the mirror lacks), and one every period. */
  static start(
    space: SpaceView,
    files: MirroredFiles | undefined,
    state: MirrorState,
    options: SpaceMirrorOptions,
    now: () => number = Date.now,
  ): SpaceMirror {
    const mirror = new SpaceMirror(space, files, state, options, now);
    mirror.#pullSoon(true);
    mirror.#enqueue(() => mirror.#pushNow()).catch(() => mirror.changed());
    if (options.pullIntervalMs > 0)
      mirror.#pullTimer = setRepeating(() => mirror.#pullSoon(), options.pullIntervalMs);
    return mirror;
  }

  get writer(): string {
    return this.state.writer;
  }

  /** What one pull or push did, for tests and benchmarks. */
  get counts(): MirrorCounts {
    return this.#mirror.counts;
  }

  status(): MirrorStatus {
    return {
      index: this.options.index,
      writer: this.state.writer,
      segments: this.#mirror.own.size,
      ...this.#mirror.times,
    };
  }

  /** The space changed: push within `pushDelayMs` of the first change not yet pushed. */
  changed(): void {
    if (this.#closed || this.#pushTimer !== undefined) return;
    this.#pushTimer = setTimer(() => {
      this.#pushTimer = undefined;
      // A push that failed (the store unreachable) is tried again after the same delay.
      this.#enqueue(() => this.#pushNow()).catch(() => this.changed());
    }, this.options.pushDelayMs);
  }

  /** Pushes what the mirror lacks, then pulls. Rejects with the first failure. */
  sync(): Promise<void> {
    return this.#enqueue(async () => {
      await this.#pushNow();
      await this.#pull.run();
    });
  }

  /** Compacts now, whatever the counts (after the operations already queued). */
  compact(): Promise<void> {
    return this.#enqueue(() => this.#compaction.run());
  }

  /** Pushes what is left, then stops and closes the state store. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#pushTimer !== undefined) clearTimer(this.#pushTimer);
    if (this.#pullTimer !== undefined) clearRepeating(this.#pullTimer);
    if (this.#retryTimer !== undefined) clearTimer(this.#retryTimer);
    this.#unsubscribeFiles?.();
    await this.#run(() => this.#pushNow()).catch(() => undefined);
    await this.state.close();
  }

  async #pushNow(): Promise<void> {
    const written = await this.#push.versions();
    if (written !== undefined) {
      this.#mirror.times.pushedAt = this.#mirror.now();
      if (written.length > 0) await this.#compaction.ifDue();
    }
    await this.#push.files();
  }

  /**
   * Queues a pull. The pull at open is tried again every {@link OPEN_PULL_RETRY_MS} until one
   * succeeds when there is no period to pull on, so a device that opened offline still catches up.
   */
  #pullSoon(atOpen = false): void {
    if (this.#pullQueued || this.#closed) return;
    this.#pullQueued = true;
    this.#enqueue(() => {
      this.#pullQueued = false;
      return this.#pull.run();
    }).catch(() => {
      if (!atOpen || this.options.pullIntervalMs > 0 || this.#closed) return;
      this.#retryTimer = setTimer(() => {
        this.#retryTimer = undefined;
        this.#pullSoon(true);
      }, OPEN_PULL_RETRY_MS);
    });
  }

  #enqueue(op: () => Promise<void>): Promise<void> {
    if (this.#closed) return Promise.reject(new MincaError('closed', 'the mirror is closed'));
    return this.#run(op);
  }

  #run(op: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(async () => {
      try {
        await op();
        delete this.#mirror.times.error;
      } catch (error) {
        const e = asMincaError(error, `mirror ${this.options.index}`);
        this.#mirror.times.error = e.message;
        this.#mirror.report(e);
        throw e;
      }
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
