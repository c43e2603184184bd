/**
 * One space mirrored to one blob store (spec 05 §16): push what the mirror lacks as segments,
 * pull the segments not yet read, and compact this writer's own segments. Operations on one
 * mirror run one at a time. Versions pulled go through the same checks as a peer's.
 */
import type { BlobStore } from '../blob-store.js';
import { isMincaError, MincaError } from '../errors.js';
import { isSystemCollection } from '../names.js';
import type { Store } from '../store.js';
import { clearRepeating, clearTimer, setRepeating, setTimer } from '../timers.js';
import { decodeVersion, openBody, type Version, verifyVersion } from '../version.js';
import { type MirroredFiles, MirrorFileSource, pushFiles } from './mirror-files.js';
import type { MirrorState } from './mirror-state.js';
import {
  decodeSegment,
  encodeSegment,
  parseSegmentKey,
  SEGMENT_BYTES,
  type SegmentName,
  spacePrefix,
  writerPrefix,
} from './segment.js';

/** A writer compacts once it has this many segments of its own (and twice what it last left). */
export const COMPACT_MIN_SEGMENTS = 32;
/** When the pull at open failed and nothing pulls on a period, it is tried again after this, ms. */
export const OPEN_PULL_RETRY_MS = 30_000;
/** Blob store requests in flight per mirror. */
const CONCURRENCY = 4;
/** Segments written per counter reservation and state write. */
const WRITE_WINDOW = 8;
/** Bodies read from the store at once while packing. */
const READ_WINDOW = 2048;
/** Versions taken in at once. */
const TAKE_IN_BATCH = 2000;
/** Listings per pull when segments vanish under it (a compaction): each finds the newer ones. */
const MAX_PASSES = 4;

/** What a mirror needs of the space it mirrors. */
export interface MirroredSpace {
  readonly id: string;
  readonly store: Store;
  /** The space key, when this node holds it; a host mirrors without it. */
  readonly key: Uint8Array | undefined;
  mayTakeIn(version: Version): Promise<boolean>;
  takeIn(versions: readonly Version[]): Promise<Version[]>;
  /** The space's files, pushed beside its segments (§16.4); none when the node keeps none. */
  readonly files?: MirroredFiles;
}

/** Where a mirror's error happened. */
export interface MirrorErrorContext {
  space: string;
  /** The mirror's index: its place in the node's list of mirrors. */
  mirror: number;
  /** The segment key, for a segment that was skipped. */
  segment?: string;
}

export interface SpaceMirrorOptions {
  index: number;
  store: BlobStore;
  pushDelayMs: number;
  pullIntervalMs: number;
  onError?: (error: MincaError, where: MirrorErrorContext) => void;
  /** For tests: the segment size target, and the compaction threshold. */
  segmentBytes?: number;
  compactMinSegments?: number;
}

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

/** What one pull or push did, for tests and benchmarks. */
export interface MirrorCounts {
  segmentsRead: number;
  segmentsWritten: number;
  segmentsDeleted: number;
  versionsTakenIn: number;
  versionsPushed: number;
  compactions: number;
  filesPut: number;
  filesDeleted: number;
}

async function eachLimited<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

const asMincaError = (error: unknown, what: string): MincaError =>
  isMincaError(error) ? error : new MincaError('storage', `${what} failed`, { cause: error });

export class SpaceMirror {
  /** This writer's segments known to be in the mirror. */
  readonly #own = new Set<string>();
  /** Segments already reported as skipped, so a damaged one is told once. */
  readonly #reported = new Set<string>();
  readonly counts: MirrorCounts = {
    segmentsRead: 0,
    segmentsWritten: 0,
    segmentsDeleted: 0,
    versionsTakenIn: 0,
    versionsPushed: 0,
    compactions: 0,
    filesPut: 0,
    filesDeleted: 0,
  };
  /** Where `readFile` may fetch this space's files from, after peers. */
  readonly fileSource: MirrorFileSource;
  /** This writer's files in the mirror (id → whole), once listed; and whether to look again. */
  #filesInMirror: Map<string, boolean> | undefined;
  #filesDirty = true;
  #unsubscribeFiles: (() => void) | undefined;
  #queue: Promise<void> = Promise.resolve();
  #pushTimer: unknown;
  #pullTimer: unknown;
  #retryTimer: unknown;
  #pullQueued = false;
  #closed = false;
  #status: Omit<MirrorStatus, 'index' | 'writer' | 'segments'> = {};

  private constructor(
    private readonly space: MirroredSpace,
    private readonly state: MirrorState,
    private readonly options: SpaceMirrorOptions,
    private readonly now: () => number,
  ) {
    this.fileSource = new MirrorFileSource(options.store, space.id, options.index);
    this.#unsubscribeFiles = space.files?.subscribe(() => {
      this.#filesDirty = true;
      this.changed();
    });
  }

  /** Starts mirroring: a pull now (then a push of what the mirror lacks), and one every period. */
  static start(
    space: MirroredSpace,
    state: MirrorState,
    options: SpaceMirrorOptions,
    now: () => number = Date.now,
  ): SpaceMirror {
    const mirror = new SpaceMirror(space, state, options, now);
    mirror.#pullSoon(true);
    mirror.#enqueue(() => mirror.#push()).catch(() => mirror.changed());
    if (options.pullIntervalMs > 0)
      mirror.#pullTimer = setRepeating(() => mirror.#pullSoon(), options.pullIntervalMs);
    return mirror;
  }

  get writer(): string {
    return this.state.writer;
  }

  status(): MirrorStatus {
    return {
      index: this.options.index,
      writer: this.state.writer,
      segments: this.#own.size,
      ...this.#status,
    };
  }

  /** The space changed: push within `pushDelayMs` of the first change not yet pushed. */
  changed(): void {
    if (this.#closed || this.#pushTimer !== undefined) return;
    this.#pushTimer = setTimer(() => {
      this.#pushTimer = undefined;
      // A push that failed (the store unreachable) is tried again after the same delay.
      this.#enqueue(() => this.#push()).catch(() => this.changed());
    }, this.options.pushDelayMs);
  }

  /** Pushes what the mirror lacks, then pulls. Rejects with the first failure. */
  sync(): Promise<void> {
    return this.#enqueue(async () => {
      await this.#push();
      await this.#pull();
    });
  }

  /** Pushes what is left, then stops. The state store is closed by the caller. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#pushTimer !== undefined) clearTimer(this.#pushTimer);
    if (this.#pullTimer !== undefined) clearRepeating(this.#pullTimer);
    if (this.#retryTimer !== undefined) clearTimer(this.#retryTimer);
    this.#unsubscribeFiles?.();
    await this.#run(() => this.#push()).catch(() => undefined);
    await this.state.close();
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
      return this.#pull();
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
        delete this.#status.error;
      } catch (error) {
        const e = asMincaError(error, `mirror ${this.options.index}`);
        this.#status.error = e.message;
        this.#report(e);
        throw e;
      }
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #report(error: MincaError, segment?: string): void {
    const where: MirrorErrorContext = { space: this.space.id, mirror: this.options.index };
    if (segment !== undefined) where.segment = segment;
    try {
      this.options.onError?.(error, where);
    } catch {
      // A listener that throws can't stop the mirror.
    }
  }

  // ---- pull ----

  async #pull(): Promise<void> {
    const prefix = spacePrefix(this.space.id);
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const listed: SegmentName[] = [];
      for (const key of await this.options.store.list(prefix)) {
        const name = parseSegmentKey(key);
        if (name && name.space === this.space.id) listed.push(name);
      }
      await this.#noteOwn(listed);
      const listedKeys = new Set(listed.map((n) => n.key));
      // Others' segments gone from the listing (compacted away) needn't be remembered.
      const gone = [...this.state.read].filter(
        (key) =>
          key.startsWith(prefix) &&
          !listedKeys.has(key) &&
          !key.startsWith(writerPrefix(this.space.id, this.state.writer)),
      );
      await this.state.forget(gone);
      const unread = listed.filter((n) => !this.state.read.has(n.key));
      if (unread.length === 0) break;
      const vanished = await this.#read(unread);
      if (!vanished) break;
    }
    this.#status.pulledAt = this.now();
  }

  /** Keeps track of this writer's own segments, and moves its counter past what it finds. */
  async #noteOwn(listed: readonly SegmentName[]): Promise<void> {
    let highest = -1;
    for (const name of listed) {
      if (name.writer !== this.state.writer) continue;
      this.#own.add(name.key);
      highest = Math.max(highest, name.counter);
    }
    if (highest >= 0) await this.state.passed(highest);
  }

  /** Reads segments and takes in what they hold. True when some vanished before being read. */
  async #read(names: readonly SegmentName[]): Promise<boolean> {
    let vanished = false;
    const found: Array<{ name: SegmentName; ids: string[] }> = [];
    const pending = new Map<string, Version>();
    await eachLimited(names, async (name) => {
      const bytes = await this.options.store.get(name.key);
      if (bytes === null) {
        vanished = true;
        return;
      }
      this.counts.segmentsRead++;
      try {
        const versions = await this.#verify(name, bytes);
        for (const v of versions) pending.set(v.id, v);
        found.push({ name, ids: versions.map((v) => v.id) });
      } catch (error) {
        const e = asMincaError(error, `reading segment ${name.key}`);
        if (!this.#reported.has(name.key)) {
          this.#reported.add(name.key);
          this.#report(e, name.key);
        }
        // A segment whose bytes check out but hold a bad version is hostile: never read again.
        // One that doesn't hash to its name may be half copied, and is read again next time.
        if (e.code !== 'malformed') await this.state.learn([name.key], []);
      }
    });
    await this.#takeIn([...pending.values()]);
    const store = this.space.store;
    const done: string[] = [];
    const known: string[] = [];
    for (const { name, ids } of found) {
      const held = ids.filter((id) => store.hasVersion(pending.get(id)!.collection, id));
      known.push(...held);
      if (held.length === ids.length) done.push(name.key);
      else if (!this.#reported.has(name.key)) {
        // Left unread: the grant that lets their author write may come in a later segment.
        this.#reported.add(name.key);
        this.#report(
          new MincaError(
            'not_authorized',
            `segment ${name.key} holds ${ids.length - held.length} versions whose authors may not write`,
          ),
          name.key,
        );
      }
    }
    await this.state.learn(done, known);
    return vanished;
  }

  /** Decodes a segment and checks every version in it as a peer's would be checked. */
  async #verify(name: SegmentName, bytes: Uint8Array): Promise<Version[]> {
    const segment = decodeSegment(name, bytes);
    let versions: Version[];
    try {
      versions = segment.versions.map((b) => decodeVersion(b));
    } catch (cause) {
      // The segment's bytes are as written (its hash says so): what it holds is bad, for good.
      throw new MincaError('invalid_version', `segment ${name.key} holds a bad version`, { cause });
    }
    const store = this.space.store;
    const fresh = versions.filter((v) => !store.hasVersion(v.collection, v.id));
    await Promise.all(fresh.map(verifyVersion));
    for (const v of fresh) {
      if (v.space !== this.space.id)
        throw new MincaError(
          'invalid_version',
          `segment ${name.key} holds another space's version`,
        );
      if (v.sealedBody !== null && this.space.key) {
        try {
          openBody(v, this.space.key);
        } catch (cause) {
          throw new MincaError(
            'invalid_version',
            `version ${v.id} in segment ${name.key} does not open under the space key`,
            { cause },
          );
        }
      }
    }
    return versions;
  }

  /** Takes in what may be taken in; a grant taken in may let more in, so it goes round. */
  async #takeIn(versions: Version[]): Promise<void> {
    const store = this.space.store;
    let remaining = versions.filter((v) => !store.hasVersion(v.collection, v.id));
    // The space's own records first: they decide who may write the rest.
    remaining.sort(
      (a, b) => Number(isSystemCollection(b.collection)) - Number(isSystemCollection(a.collection)),
    );
    while (remaining.length > 0) {
      const ready: Version[] = [];
      const later: Version[] = [];
      for (const v of remaining) ((await this.space.mayTakeIn(v)) ? ready : later).push(v);
      if (ready.length === 0) break;
      for (let i = 0; i < ready.length; i += TAKE_IN_BATCH) {
        const fresh = await this.space.takeIn(ready.slice(i, i + TAKE_IN_BATCH));
        this.counts.versionsTakenIn += fresh.length;
      }
      remaining = later;
    }
  }

  // ---- push and compaction ----

  /** Ids of the versions the store holds: the space's own records first, then by timestamp. */
  #held(filter: (id: string) => boolean): string[] {
    const store = this.space.store;
    const system: Array<[number, string]> = [];
    const rest: Array<[number, string]> = [];
    for (const name of store.collectionNames()) {
      const into = isSystemCollection(name) ? system : rest;
      for (const meta of store.collection(name)!.versions.values())
        if (filter(meta.id)) into.push([meta.timestamp, meta.id]);
    }
    const byTime = (a: [number, string], b: [number, string]) =>
      a[0] - b[0] || (a[1] < b[1] ? -1 : 1);
    return [...system.sort(byTime), ...rest.sort(byTime)].map(([, id]) => id);
  }

  async #push(): Promise<void> {
    const known = this.state.known;
    const ids = this.#held((id) => !known.has(id));
    if (ids.length > 0) {
      const written = await this.#write(ids);
      this.counts.versionsPushed += ids.length;
      this.#status.pushedAt = this.now();
      if (written.length > 0) await this.#compactIfDue();
    }
    const files = this.space.files;
    if (files && this.#filesDirty) {
      this.#filesDirty = false;
      try {
        this.#filesInMirror = await pushFiles(
          this.options.store,
          this.space.id,
          this.state.writer,
          files,
          this.#filesInMirror,
          this.counts,
        );
      } catch (error) {
        this.#filesDirty = true;
        // What is there is unknown now: list again next time.
        this.#filesInMirror = undefined;
        throw error;
      }
    }
  }

  /**
   * Writes `ids` as new segments of this writer, a window at a time: counters are taken (and
   * persisted) first, then the segments put, then marked read and their versions known.
   */
  async #write(ids: readonly string[]): Promise<string[]> {
    const target = this.options.segmentBytes ?? SEGMENT_BYTES;
    const written: string[] = [];
    let packs: Version[][] = [];
    let pack: Version[] = [];
    let size = 0;
    const flush = async () => {
      if (packs.length === 0) return;
      const first = await this.state.reserve(packs.length);
      const segments = packs.map((versions, i) => ({
        ids: versions.map((v) => v.id),
        ...encodeSegment({
          space: this.space.id,
          writer: this.state.writer,
          counter: first + i,
          versions: versions.map((v) => v.bytes),
        }),
      }));
      packs = [];
      await eachLimited(segments, async (s) => {
        await this.options.store.put(s.key, s.bytes);
        this.#own.add(s.key);
        this.counts.segmentsWritten++;
      });
      await this.state.learn(
        segments.map((s) => s.key),
        segments.flatMap((s) => s.ids),
      );
      written.push(...segments.map((s) => s.key));
    };
    for (let i = 0; i < ids.length; i += READ_WINDOW) {
      const versions = await this.space.store.getVersions(ids.slice(i, i + READ_WINDOW));
      for (const v of versions) {
        if (!v) continue;
        if (pack.length > 0 && size + v.bytes.length > target) {
          packs.push(pack);
          pack = [];
          size = 0;
          if (packs.length >= WRITE_WINDOW) await flush();
        }
        pack.push(v);
        size += v.bytes.length;
      }
    }
    if (pack.length > 0) packs.push(pack);
    await flush();
    return written;
  }

  async #compactIfDue(): Promise<void> {
    const min = this.options.compactMinSegments ?? COMPACT_MIN_SEGMENTS;
    const own = this.#own.size;
    if (own < min || own < 2 * this.state.compacted) return;
    await this.#compact();
  }

  /** Compacts now, whatever the counts (after the operations already queued). */
  compact(): Promise<void> {
    return this.#enqueue(() => this.#compact());
  }

  /**
   * Compacts: writes everything the store holds as new segments, then deletes this writer's
   * older segments. Only segments this writer wrote or read are deleted, and only after the new
   * ones are all in, so whatever a reader finds gone is in a newer segment first. A compaction
   * that would not shrink the writer's segments by a quarter writes nothing.
   */
  async #compact(): Promise<void> {
    const mine = writerPrefix(this.space.id, this.state.writer);
    for (const key of await this.options.store.list(mine)) {
      const name = parseSegmentKey(key);
      if (name?.writer === this.state.writer) this.#own.add(key);
    }
    const before = [...this.#own].filter((key) => this.state.read.has(key));
    const ids = this.#held(() => true);
    if ((await this.#packCount(ids)) * 4 > before.length * 3) {
      await this.state.setCompacted(this.#own.size);
      return;
    }
    const written = new Set(await this.#write(ids));
    const old = before.filter((key) => !written.has(key));
    await eachLimited(old, async (key) => {
      await this.options.store.delete(key);
      this.#own.delete(key);
      this.counts.segmentsDeleted++;
    });
    await this.state.forget(old);
    await this.state.setCompacted(this.#own.size);
    this.counts.compactions++;
  }

  /** How many segments `ids` would pack into. */
  async #packCount(ids: readonly string[]): Promise<number> {
    const target = this.options.segmentBytes ?? SEGMENT_BYTES;
    let count = 0;
    let size = 0;
    for (let i = 0; i < ids.length; i += READ_WINDOW) {
      for (const v of await this.space.store.getVersions(ids.slice(i, i + READ_WINDOW))) {
        if (!v) continue;
        if (size > 0 && size + v.bytes.length > target) {
          count++;
          size = 0;
        }
        size += v.bytes.length;
      }
    }
    return count + (size > 0 ? 1 : 0);
  }
}
