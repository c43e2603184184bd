/**
 * Every mirror of one open space: the store factory's own mirrors first (a data folder's), then
 * the node's, each with its state store `mirrors/<space id>/<n>`. The node holds one of these
 * per open space and tells it of changes; this is the whole hook mirrors have into the node.
 */
import type { MirrorConfig, StoreFactory } from '../adapter.js';
import type { BlobStore } from '../blob-store.js';
import { isMincaError, MincaError } from '../errors.js';
import type { SpaceView } from '../space/space-view.js';
import type { MirroredFiles, MirrorFileSource } from './mirror-files.js';
import { MirrorState, mirrorStatePath } from './mirror-state.js';
import { type MirrorErrorContext, type MirrorStatus, SpaceMirror } from './space-mirror.js';

/** Push delay when a mirror's config gives none, ms. */
export const DEFAULT_PUSH_DELAY_MS = 5_000;

/** A mirror as `NodeConfig.mirrors` takes it: a blob store, or one with its timings. */
export type MirrorInput = BlobStore | MirrorConfig;

/** A mirror with its timings settled. */
export interface ResolvedMirror {
  store: BlobStore;
  pushDelayMs: number;
  pullIntervalMs: number;
}

const isConfig = (input: MirrorInput): input is MirrorConfig =>
  typeof (input as MirrorConfig).store === 'object' && (input as MirrorConfig).store !== null;

function resolve(input: MirrorInput): ResolvedMirror {
  const config = isConfig(input) ? input : { store: input };
  const { store } = config;
  if (
    typeof store?.get !== 'function' ||
    typeof store.put !== 'function' ||
    typeof store.delete !== 'function' ||
    typeof store.list !== 'function'
  ) {
    throw new TypeError('a mirror is a blob store (get, put, delete, list) or { store }');
  }
  const pushDelayMs = config.pushDelayMs ?? DEFAULT_PUSH_DELAY_MS;
  const pullIntervalMs = config.pullIntervalMs ?? 0;
  for (const [name, ms] of [
    ['pushDelayMs', pushDelayMs],
    ['pullIntervalMs', pullIntervalMs],
  ] as const) {
    if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError(`${name} must be a number >= 0`);
  }
  return { store, pushDelayMs, pullIntervalMs };
}

/** The mirrors of a node: its store factory's, then its own config's; index = place in this list. */
export function resolveMirrors(
  factory: readonly MirrorConfig[] | undefined,
  node: readonly MirrorInput[] | undefined,
): ResolvedMirror[] {
  return [...(factory ?? []), ...(node ?? [])].map(resolve);
}

export type MirrorErrorListener = (error: MincaError, where: MirrorErrorContext) => void;

export class SpaceMirrors {
  private constructor(readonly mirrors: readonly SpaceMirror[]) {}

  /** Starts every mirror of `space`. A mirror whose state store won't open is reported and left out. */
  static async start(
    space: SpaceView,
    files: MirroredFiles | undefined,
    stores: StoreFactory,
    mirrors: readonly ResolvedMirror[],
    onError: MirrorErrorListener | undefined,
    now: () => number,
  ): Promise<SpaceMirrors> {
    const started: SpaceMirror[] = [];
    for (const [index, mirror] of mirrors.entries()) {
      try {
        const state = await MirrorState.open(await stores.open(mirrorStatePath(space.id, index)));
        started.push(SpaceMirror.start(space, files, state, { index, ...mirror, onError }, now));
      } catch (error) {
        const e = isMincaError(error)
          ? error
          : new MincaError('storage', `mirror ${index} state could not be opened`, {
              cause: error,
            });
        onError?.(e, { space: space.id, mirror: index });
      }
    }
    return new SpaceMirrors(started);
  }

  /** Where `readFile` may fetch the space's files from, after peers: each mirror in order. */
  fileSources(): MirrorFileSource[] {
    return this.mirrors.map((m) => m.fileSource);
  }

  changed(): void {
    for (const mirror of this.mirrors) mirror.changed();
  }

  /** Pushes to and pulls from every mirror now; rejects with the first failure after all ran. */
  async sync(): Promise<void> {
    const results = await Promise.allSettled(this.mirrors.map((m) => m.sync()));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  status(): MirrorStatus[] {
    return this.mirrors.map((m) => m.status());
  }

  /** Pushes what is left to every mirror, then stops them. */
  async close(): Promise<void> {
    await Promise.all(this.mirrors.map((m) => m.close()));
  }
}
