/**
 * The node's mirrors (spec 05 §16.1): one {@link SpaceMirrors} per open space, started as the
 * space opens and closed (after a last push) as it closes.
 */
import type { StoreFactory } from '../adapter.js';
import type { FileSource } from '../files/source.js';
import type { MirroredFiles } from '../mirror/mirror-files.js';
import type { MirrorStatus } from '../mirror/space-mirror.js';
import {
  type MirrorErrorListener,
  type ResolvedMirror,
  SpaceMirrors,
} from '../mirror/space-mirrors.js';
import type { SpaceView } from '../space/space-view.js';

export class NodeMirrors {
  readonly #spaces = new Map<string, SpaceMirrors>();

  constructor(
    private readonly stores: StoreFactory,
    private readonly mirrors: readonly ResolvedMirror[],
    private readonly onError: MirrorErrorListener | undefined,
    private readonly now: () => number,
  ) {}

  /** Starts the mirrors of a space just opened, if the node has any. */
  async start(space: SpaceView, files: MirroredFiles | undefined): Promise<void> {
    if (this.mirrors.length === 0) return;
    this.#spaces.set(
      space.id,
      await SpaceMirrors.start(space, files, this.stores, this.mirrors, this.onError, this.now),
    );
  }

  /** The space changed: its mirrors push soon. */
  changed(id: string): void {
    this.#spaces.get(id)?.changed();
  }

  /** Pushes to and pulls from the space's mirrors now. */
  async sync(id: string): Promise<void> {
    await this.#spaces.get(id)?.sync();
  }

  status(id: string): MirrorStatus[] {
    return this.#spaces.get(id)?.status() ?? [];
  }

  /** Where `readFile` falls back to after peers: each mirror of the space, in order. */
  fileSources(id: string): FileSource[] {
    return this.#spaces.get(id)?.fileSources() ?? [];
  }

  /** Pushes what is left to the space's mirrors, and stops them. */
  async close(id: string): Promise<void> {
    const mirrors = this.#spaces.get(id);
    this.#spaces.delete(id);
    await mirrors?.close();
  }
}
