/**
 * The node's side of files: one {@link SpaceFiles} per open space, the peers each space is
 * shared with (as sources, in the order they connected), the other sources the node was
 * given, the limits, and the hooks the sync peer calls.
 */
import { MincaError } from '../errors.js';
import type { SpaceView } from '../space/space-view.js';
import type { FileAnswer, FileAsk, FileChannel, FileService } from './file-channel.js';
import { checkLimits, DEFAULT_FILE_LIMITS, type FileLimits, LIMITS_APPLY_MS } from './limits.js';
import { type FileSource, type FileSourceProvider, PeerFileSource } from './source.js';
import { SpaceFiles } from './space-files.js';

/** What changed in a space's files: told to `files.subscribe` listeners. */
export interface FilesChange {
  space: string;
}

export class NodeFiles implements FileService {
  readonly #spaces = new Map<string, { space: SpaceView; files: Promise<SpaceFiles> }>();
  /** The files of each open space, once opened. */
  readonly #ready = new Map<string, SpaceFiles>();
  /** Per space, its peers as sources, in the order they joined it. */
  readonly #peers = new Map<string, PeerFileSource[]>();
  readonly #providers: FileSourceProvider[] = [];
  readonly #listeners = new Map<string, Set<(change: FilesChange) => void>>();
  #limits: FileLimits = { ...DEFAULT_FILE_LIMITS };

  constructor(
    private readonly now: () => number,
    readonly fetchAll: boolean,
  ) {}

  /** Starts keeping the files of a space just opened. */
  opened(space: SpaceView): Promise<SpaceFiles> {
    const files = SpaceFiles.open(space, {
      now: this.now,
      limits: () => this.#limits,
      fetchAll: this.fetchAll,
      sources: () => this.sources(space.id),
      changed: () => this.#tell(space.id),
      subscribe: (listener) => this.subscribe(space.id, listener),
    });
    this.#spaces.set(space.id, { space, files });
    void files.then(
      (f) => {
        if (this.#spaces.get(space.id)?.files === files) this.#ready.set(space.id, f);
      },
      () => undefined,
    );
    space.subscribe(() => void files.then((f) => f.recordsChanged()));
    files.catch(() => this.#spaces.delete(space.id));
    return files;
  }

  /** Stops keeping a space's files: reads waiting on it reject `closed`. */
  async closed(id: string): Promise<void> {
    const entry = this.#spaces.get(id);
    if (!entry) return;
    this.#spaces.delete(id);
    this.#ready.delete(id);
    (await entry.files.catch(() => undefined))?.close();
  }

  /**
   * Whether a file of space `id` is being added, read or fetched (or a read waits): the space
   * stays open meanwhile. Only once its files opened; until then nothing of them is under way.
   */
  inUse(id: string): boolean {
    return this.#ready.get(id)?.inUse === true;
  }

  /** Reads a space's files again, after another process wrote its store (`node.invalidate`). */
  async reloaded(id: string): Promise<void> {
    await (await this.#spaces.get(id)?.files.catch(() => undefined))?.reloaded();
  }

  /** The files of open space `space` (opened through the node first). */
  async of(space: SpaceView): Promise<SpaceFiles> {
    const entry = this.#spaces.get(space.id);
    if (entry && entry.space === space) return entry.files;
    return this.opened(space);
  }

  setLimits(limits: Partial<FileLimits>): void {
    checkLimits(limits);
    this.#limits = { ...this.#limits, ...limits };
    for (const { files } of this.#spaces.values())
      void files.then((f) => f.limitsChanged(LIMITS_APPLY_MS));
  }

  get limits(): Readonly<FileLimits> {
    return this.#limits;
  }

  addSources(provider: FileSourceProvider): () => void {
    if (typeof provider !== 'function') throw new TypeError('a file source provider is a function');
    this.#providers.push(provider);
    return () => {
      const i = this.#providers.indexOf(provider);
      if (i >= 0) this.#providers.splice(i, 1);
    };
  }

  /** Where space `id`'s files are fetched from: its peers, then the other sources. */
  sources(id: string): FileSource[] {
    const out: FileSource[] = [...(this.#peers.get(id) ?? [])];
    for (const provider of this.#providers) {
      try {
        out.push(...provider(id));
      } catch {
        // A provider that fails gives no sources; peers and the others still serve.
      }
    }
    return out;
  }

  subscribe(space: string, listener: (change: FilesChange) => void): () => void {
    let set = this.#listeners.get(space);
    if (!set) this.#listeners.set(space, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  #tell(space: string): void {
    for (const listener of this.#listeners.get(space) ?? [])
      void Promise.resolve({ space }).then(listener);
  }

  // ——— the sync peer's hooks ———

  linked(channel: FileChannel, space: string): void {
    const source = new PeerFileSource(channel, space);
    const list = this.#peers.get(space) ?? [];
    list.push(source);
    this.#peers.set(space, list);
    void this.#spaces.get(space)?.files.then((f) => f.peerLinked(source));
  }

  /** A connection ended: its peer is no source any more. */
  peerEnded(channel: FileChannel): void {
    for (const [space, list] of this.#peers) {
      const rest = list.filter((s) => s.peer !== channel);
      if (rest.length > 0) this.#peers.set(space, rest);
      else this.#peers.delete(space);
    }
  }

  async serve(space: string, ask: FileAsk, from: FileChannel): Promise<FileAnswer> {
    const entry = this.#spaces.get(space);
    if (!entry) return { chunks: ask.chunks.map(() => null) };
    try {
      return await (await entry.files).serve(ask, from);
    } catch (error) {
      // A space closing under a request answers "not here"; the peer asks elsewhere.
      if (error instanceof MincaError) return { chunks: ask.chunks.map(() => null) };
      throw error;
    }
  }
}
