/**
 * What the parts of one space's mirror share (spec 05 §16): the space, its files, the mirror's
 * state and blob store, this writer's segments known to be there, the sizes of versions seen,
 * the counts, and where errors are told. Pull, push and compaction each work over one of these.
 */
import type { BlobStore } from '../blob-store.js';
import { isMincaError, MincaError } from '../errors.js';
import { isSystemCollection } from '../names.js';
import type { SpaceView } from '../space/space-view.js';
import type { MirroredFiles } from './mirror-files.js';
import type { MirrorState } from './mirror-state.js';
import { SEGMENT_BYTES } from './segment.js';

/** A writer compacts once it has this many segments of its own (and twice what it last left). */
export const COMPACT_MIN_SEGMENTS = 32;
/** Blob store requests in flight per mirror. */
const CONCURRENCY = 4;

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

/** When the last pull and push finished, ms, and the last error: told in `spaces.status`. */
export interface MirrorTimes {
  pulledAt?: number;
  pushedAt?: number;
  error?: string;
}

export class MirrorContext {
  readonly times: MirrorTimes = {};
  /** This writer's segments known to be in the mirror. */
  readonly own = new Set<string>();
  /** Encoded sizes of versions this mirror packed or read, so a compaction can tell its gain. */
  readonly sizes = new Map<string, number>();
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

  constructor(
    readonly space: SpaceView,
    /** The space's files, pushed beside its segments (§16.4); none when the node keeps none. */
    readonly files: MirroredFiles | undefined,
    readonly state: MirrorState,
    readonly options: SpaceMirrorOptions,
    readonly now: () => number,
  ) {}

  get store(): BlobStore {
    return this.options.store;
  }

  get segmentBytes(): number {
    return this.options.segmentBytes ?? SEGMENT_BYTES;
  }

  get compactMinSegments(): number {
    return this.options.compactMinSegments ?? COMPACT_MIN_SEGMENTS;
  }

  /** Tells the node's listener of an error; a listener that throws can't stop the mirror. */
  report(error: MincaError, segment?: string): void {
    const where: MirrorErrorContext = { space: this.space.id, mirror: this.options.index };
    if (segment !== undefined) where.segment = segment;
    try {
      this.options.onError?.(error, where);
    } catch {
      // Told, and ignored.
    }
  }

  /** Ids of the versions the store holds: the space's own records first, then by timestamp. */
  held(filter: (id: string) => boolean): string[] {
    const store = this.space.store;
    const system: Array<[number, string]> = [];
    const rest: Array<[number, string]> = [];
    for (const name of store.collectionNames()) {
      const into = isSystemCollection(name) ? system : rest;
      for (const item of store.items(name)) if (filter(item[1])) into.push(item);
    }
    const byTime = (a: [number, string], b: [number, string]) =>
      a[0] - b[0] || (a[1] < b[1] ? -1 : 1);
    return [...system.sort(byTime), ...rest.sort(byTime)].map(([, id]) => id);
  }
}

/** Runs `fn` over `items`, a few at a time. */
export async function eachLimited<T>(
  items: readonly T[],
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

export const asMincaError = (error: unknown, what: string): MincaError =>
  isMincaError(error) ? error : new MincaError('storage', `${what} failed`, { cause: error });
