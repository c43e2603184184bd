/**
 * What the two folder stores share (directory-adapter.ts and synced-folder-adapter.ts): the
 * file layout, the checks of a caller's arguments, writes landing one batch at a time, the
 * overlay of a batch's writes not yet on disk, and reads of several files that never show half
 * a batch. Each store adds how it reads, writes and recovers its files.
 */
import {
  assertBodyBytes,
  assertCommit,
  assertVersionKey,
  assertWrites,
  type Commit,
  type EntryWrite,
  MincaError,
  type StorageAdapter,
  type VersionKey,
} from '@minca/core';
import { FILE_SUFFIX, keyPath } from './file-names.js';
import type { FolderFs } from './folder-fs.js';
import { mapLimited } from './parallel.js';
import type { SortedKeys } from './sorted-keys.js';

export const ENTRIES = 'entries.d';
export const VERSIONS = 'versions.d';
export const VERSION_ID = /^[0-9a-f]{64}$/;
/** Files read or written at once. */
export const PARALLEL = 16;
/** Optimistic tries of a multi-key read before it waits for writes to finish. */
const READ_TRIES = 4;

/** Entry writes of one batch, by key: `undefined` deletes. */
export type EntryWrites = Map<string, Uint8Array | undefined>;

/** Last write of a key wins; values are copied so the caller may reuse its buffers. */
function collapse(writes: readonly EntryWrite[]): EntryWrites {
  const out: EntryWrites = new Map();
  for (const { key, value } of writes) {
    out.delete(key);
    out.set(key, value?.slice());
  }
  return out;
}

export abstract class FileBackedStore implements StorageAdapter {
  protected readonly fs: FolderFs;
  protected readonly root: readonly string[];
  /** How messages name this store, such as `directory store spaces/x`. */
  protected readonly name: string;
  /** Entry writes committed but not yet all applied to their files. */
  readonly #pending: EntryWrites = new Map();
  /**
   * Counts commit points and the ends of applying, so a read of several files can tell a
   * batch landed while it read.
   */
  #commits = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  protected constructor(fs: FolderFs, root: readonly string[], name: string) {
    this.fs = fs;
    this.root = root;
    this.name = name;
  }

  /** True once {@link close} was called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  protected check(): void {
    if (this.#closed) throw new MincaError('closed', `${this.name} is closed`);
  }

  /** Runs `run` after every write before it: writes of entries land one batch at a time. */
  protected exclusive<T>(run: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(run);
    this.#queue = result.catch(() => {});
    return result;
  }

  /**
   * Runs a read of several files so that a batch committing meanwhile can't show half of it:
   * again if one did, and after a few tries between writes.
   */
  protected async consistently<T>(read: () => Promise<T>): Promise<T> {
    for (let tries = 0; tries < READ_TRIES; tries++) {
      const before = this.#commits;
      const out = await read();
      if (this.#commits === before) return out;
    }
    return this.exclusive(read);
  }

  /** A batch's commit point: from here readers in this process see all of `writes`. */
  protected committed(writes: EntryWrites): void {
    this.#commits++;
    for (const [key, value] of writes) this.#pending.set(key, value);
  }

  /** `writes` are all on disk: the overlay of them goes (unless a later batch wrote the key). */
  protected applied(writes: EntryWrites): void {
    // A listing that walked folders before these files landed must see the overlay go.
    this.#commits++;
    for (const [key, value] of writes) {
      if (this.#pending.get(key) === value) this.#pending.delete(key);
    }
  }

  /** The keys under `prefix` in `found` (read from disk), with writes not yet applied. */
  protected withPending(found: SortedKeys, prefix: string): string[] {
    for (const [key, value] of this.#pending) {
      if (!key.startsWith(prefix)) continue;
      if (value === undefined) found.delete(key);
      else found.add(key);
    }
    return found.list(prefix);
  }

  protected entryPath(key: string): string[] {
    return [...this.root, ENTRIES, ...keyPath(key)];
  }

  protected versionFolder(id: VersionKey): string[] {
    return [...this.root, VERSIONS, id.slice(0, 2)];
  }

  protected versionPath(id: VersionKey): string[] {
    return [...this.versionFolder(id), id + FILE_SUFFIX];
  }

  /** The value of `key` on disk (no write of it is pending). */
  protected abstract readEntry(key: string): Promise<Uint8Array | undefined>;
  /** The keys under `prefix`, with writes not yet applied; called inside {@link consistently}. */
  protected abstract walk(prefix: string): Promise<string[]>;
  /** Commits entry writes and version deletes as one; called inside {@link exclusive}. */
  protected abstract writeEntries(
    writes: EntryWrites,
    deleteVersions: readonly VersionKey[],
  ): Promise<void>;
  /** The body of version `id` (a well-formed id). */
  protected abstract readVersion(id: VersionKey): Promise<Uint8Array | undefined>;
  /** Stores a body (already checked and copied), durable when the store syncs. */
  protected abstract storeVersion(id: VersionKey, body: Uint8Array): Promise<void>;
  /** Removes the body of version `id` (a well-formed id). */
  protected abstract removeVersion(id: VersionKey): Promise<void>;
  /** Writes a commit's bodies, then its entries; called inside {@link exclusive}. */
  protected abstract writeCommit(
    versions: Array<readonly [VersionKey, Uint8Array]>,
    entries: EntryWrites,
    deleteVersions: readonly VersionKey[],
  ): Promise<void>;
  /** Releases what the store holds once its last write has landed. */
  protected abstract release(): Promise<void>;

  abstract list(prefix: string): Promise<string[]>;

  async get(key: string): Promise<Uint8Array | undefined> {
    this.check();
    if (typeof key !== 'string') throw new TypeError('key must be a string');
    if (this.#pending.has(key)) return this.#pending.get(key)?.slice();
    return this.readEntry(key);
  }

  async entries(prefix: string): Promise<Array<[string, Uint8Array]>> {
    this.check();
    if (typeof prefix !== 'string') throw new TypeError('prefix must be a string');
    return this.consistently(async () => {
      const keys = await this.walk(prefix);
      const values = await mapLimited(keys, PARALLEL, (key) => this.get(key));
      const out: Array<[string, Uint8Array]> = [];
      keys.forEach((key, i) => {
        const value = values[i];
        if (value !== undefined) out.push([key, value]);
      });
      return out;
    });
  }

  async batch(writes: readonly EntryWrite[]): Promise<void> {
    this.check();
    assertWrites(writes);
    const collapsed = collapse(writes);
    await this.exclusive(() => this.writeEntries(collapsed, []));
  }

  async getVersion(id: VersionKey): Promise<Uint8Array | undefined> {
    this.check();
    if (typeof id !== 'string') throw new TypeError('a version id must be a string');
    if (!VERSION_ID.test(id)) return undefined;
    return this.readVersion(id);
  }

  async getVersions(ids: readonly VersionKey[]): Promise<Array<Uint8Array | undefined>> {
    this.check();
    if (!Array.isArray(ids)) throw new TypeError('ids must be an array');
    return mapLimited(ids, PARALLEL, (id) => this.getVersion(id));
  }

  async putVersion(id: VersionKey, body: Uint8Array): Promise<void> {
    this.check();
    assertVersionKey(id);
    assertBodyBytes(body);
    await this.storeVersion(id, body.slice());
  }

  async deleteVersion(id: VersionKey): Promise<void> {
    this.check();
    if (typeof id !== 'string') throw new TypeError('a version id must be a string');
    if (!VERSION_ID.test(id)) return;
    await this.removeVersion(id);
  }

  async commit(commit: Commit): Promise<void> {
    this.check();
    assertCommit(commit);
    const versions = commit.versions.map(([id, body]) => [id, body.slice()] as const);
    const entries = collapse(commit.entries);
    await this.exclusive(() => this.writeCommit(versions, entries, commit.deleteVersions));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue;
    await this.release();
  }
}
