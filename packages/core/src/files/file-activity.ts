/**
 * What is under way with a space's files: which are pinned (being read or fetched, never dropped
 * meanwhile), one fetch per file at a time, and which source each fetch is asking now.
 */
import { type FetchOptions, type FetchResult, fetchFile } from './fetch.js';
import type { FileStore } from './file-store.js';
import type { FileSource } from './source.js';

const NONE: ReadonlySet<FileSource> = new Set();

export class FileActivity {
  /** Files being read or fetched, with how many at once. */
  readonly #pinned = new Map<string, number>();
  /** The sources each fetch under way is asking now: several peers at once. */
  readonly #askingNow = new Map<string, Set<FileSource>>();
  /** One fetch per file at a time: the last one queued. */
  readonly #busy = new Map<string, Promise<unknown>>();

  constructor(private readonly files: FileStore) {}

  pin(id: string): void {
    this.#pinned.set(id, (this.#pinned.get(id) ?? 0) + 1);
  }

  unpin(id: string): void {
    const n = (this.#pinned.get(id) ?? 1) - 1;
    if (n <= 0) this.#pinned.delete(id);
    else this.#pinned.set(id, n);
  }

  /** Some file is being read or fetched: its space is in use. */
  get active(): boolean {
    return this.#pinned.size > 0 || this.#busy.size > 0;
  }

  isPinned(id: string): boolean {
    return this.#pinned.has(id);
  }

  /** The fetch of `id` under way, if any. */
  busy(id: string): Promise<unknown> | undefined {
    return this.#busy.get(id);
  }

  /** The sources a fetch of `id` is asking now, if one is under way. */
  askingNow(id: string): ReadonlySet<FileSource> {
    return this.#askingNow.get(id) ?? NONE;
  }

  /**
   * Fetches `id`, once every earlier fetch of it has ended, from the sources `sources` gives
   * then (a peer may have connected meanwhile).
   */
  fetch(
    id: string,
    sources: () => readonly FileSource[],
    options: FetchOptions,
  ): Promise<FetchResult> {
    return this.#exclusive(id, async () => {
      try {
        return await fetchFile(this.files, id, sources(), {
          ...options,
          onSource: (source) => {
            let asking = this.#askingNow.get(id);
            if (!asking) this.#askingNow.set(id, (asking = new Set()));
            asking.add(source);
          },
        });
      } finally {
        this.#askingNow.delete(id);
      }
    });
  }

  /** Runs `work` once every earlier fetch of the same file has ended. */
  #exclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    const before = this.#busy.get(id) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.catch(() => undefined);
    this.#busy.set(id, settled);
    void settled.then(() => {
      if (this.#busy.get(id) === settled) this.#busy.delete(id);
    });
    return run;
  }
}
