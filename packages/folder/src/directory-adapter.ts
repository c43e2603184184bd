/**
 * One directory store: entries and version bodies as files in one folder.
 *
 * ```
 * <store>/entries.d/<key, named by keyPath>   an entry's value
 * <store>/versions.d/<id[0..2]>/<id>.minca    a version body
 * <store>/journal.d/<uuidv7>.minca            a batch being applied (see journal.ts)
 * ```
 *
 * By default the keys and version ids are read once, when the store opens (and on reload),
 * and kept in memory; values stay on disk. `shared` reads the folder on every call instead.
 * A batch of more than one write is first written whole as a journal: that rename is the
 * commit point. Then it is applied file by file and the journal removed. Opening the store
 * applies any journal left by a crash, and removes leftover temp files.
 */
import { type Commit, MincaError, type StorageAdapter, type VersionKey } from '@minca/core';
import {
  ENTRIES,
  type EntryWrites,
  FileBackedStore,
  PARALLEL,
  VERSION_ID,
  VERSIONS,
} from './file-backed-store.js';
import { FILE_SUFFIX } from './file-names.js';
import { type FolderFs, isStale, removeAndPrune, TEMP_NAME } from './folder-fs.js';
import { decodeJournal, encodeJournal, type JournalOp } from './journal.js';
import { readKeyTree } from './key-tree.js';
import { forEachLimited } from './parallel.js';
import { SortedKeys } from './sorted-keys.js';
import { timeUuid } from './time-uuid.js';

const JOURNAL = 'journal.d';
const JOURNAL_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.minca$/;

/** How a directory store behaves; see {@link DirectoryStoresOptions}. */
export interface DirectoryAdapterOptions {
  shared: boolean;
  sync: boolean;
  onProblem: (problem: MincaError) => void;
}

/** A store over a folder; `reload()` reads the folder's keys again. */
export interface DirectoryStorageAdapter extends StorageAdapter {
  /**
   * Reads the keys and version ids on disk again, to find another writer's changes. True when
   * they differ from what was kept (always true in shared mode, which keeps none).
   */
  reload(): Promise<boolean>;
  entries(prefix: string): Promise<Array<[string, Uint8Array]>>;
  getVersions(ids: readonly VersionKey[]): Promise<Array<Uint8Array | undefined>>;
  commit(commit: Commit): Promise<void>;
  close(): Promise<void>;
}

/** True when `a` and `b` hold the same strings (`b` has no duplicates). */
function sameSet(a: Iterable<string>, b: readonly string[] | ReadonlySet<string>): boolean {
  const inA = new Set(a);
  const size = Array.isArray(b) ? b.length : (b as ReadonlySet<string>).size;
  if (inA.size !== size) return false;
  for (const x of b) if (!inA.has(x)) return false;
  return true;
}

export class DirectoryAdapter extends FileBackedStore implements DirectoryStorageAdapter {
  readonly #options: DirectoryAdapterOptions;
  readonly #onClose: (() => void) | undefined;
  /** Keys and version ids on disk; `undefined` in shared mode. */
  #keys: SortedKeys | undefined;
  #versions: Set<VersionKey> | undefined;
  readonly #versionLocks = new Map<VersionKey, Promise<unknown>>();

  private constructor(
    fs: FolderFs,
    root: readonly string[],
    label: string,
    options: DirectoryAdapterOptions,
    onClose?: () => void,
  ) {
    super(fs, root, `directory store ${label}`);
    this.#onClose = onClose;
    this.#options = options;
  }

  /** Opens the store in the folder `root`: applies leftover journals, then reads its keys. */
  static async open(
    fs: FolderFs,
    root: readonly string[],
    label: string,
    options: DirectoryAdapterOptions,
    onClose?: () => void,
  ): Promise<DirectoryAdapter> {
    const adapter = new DirectoryAdapter(fs, root, label, options, onClose);
    await fs.makeFolder(root);
    await adapter.#recover(options.shared);
    await adapter.#load();
    return adapter;
  }

  /** Runs `run` after the writes of version `id` before it. */
  #withVersion<T>(id: VersionKey, run: () => Promise<T>): Promise<T> {
    const before = this.#versionLocks.get(id) ?? Promise.resolve();
    const result = before.then(run);
    const settled = result.catch(() => {});
    this.#versionLocks.set(id, settled);
    void settled.then(() => {
      if (this.#versionLocks.get(id) === settled) this.#versionLocks.delete(id);
    });
    return result;
  }

  /** Applies the journals a crash left (in shared mode, only stale ones), oldest first. */
  async #recover(onlyStale: boolean): Promise<void> {
    const folder = [...this.root, JOURNAL];
    const names = ((await this.fs.list(folder)) ?? [])
      .filter((entry) => entry.kind === 'file')
      .map((entry) => entry.name)
      .sort();
    for (const name of names) {
      const match = JOURNAL_NAME.exec(name);
      if (!match || (onlyStale && !isStale(match[1]!))) continue;
      const bytes = await this.fs.readFile([...folder, name]);
      if (bytes === undefined) continue;
      let ops: JournalOp[];
      try {
        ops = await decodeJournal(bytes);
      } catch (error) {
        this.#options.onProblem(
          new MincaError(
            'malformed',
            `${this.name}: ${JOURNAL}/${name} is not a whole journal ` +
              `(${(error as Error).message}); it never committed, so it was removed`,
            { cause: error },
          ),
        );
        await this.fs.removeFile([...folder, name]);
        continue;
      }
      await this.#apply(ops);
      await this.fs.removeFile([...folder, name]);
    }
  }

  /**
   * Reads the keys and version ids (default mode), and clears leftover temp files. True when
   * they differ from those kept before.
   */
  async #load(): Promise<boolean> {
    const temps: string[][] = [];
    const onTemp = (path: string[], uuid: string) => {
      if (!this.#options.shared || isStale(uuid)) temps.push(path);
    };
    const keys = await readKeyTree(this.fs, [...this.root, ENTRIES], { onTemp });
    const versions = await this.#readVersionIds(onTemp);
    const journalTemps = ((await this.fs.list([...this.root, JOURNAL])) ?? []).filter(
      (entry) => entry.kind === 'file' && entry.name.endsWith('.tmp'),
    );
    for (const entry of journalTemps) {
      const uuid = TEMP_NAME.exec(entry.name)?.[1];
      if (uuid) onTemp([...this.root, JOURNAL, entry.name], uuid);
    }
    await forEachLimited(temps, PARALLEL, (path) => this.fs.removeFile(path));
    if (this.#options.shared) return true;
    const changed =
      !this.#keys ||
      !this.#versions ||
      !sameSet(this.#keys.list(''), keys) ||
      !sameSet(this.#versions, versions);
    this.#keys = new SortedKeys(keys);
    this.#versions = versions;
    return changed;
  }

  async #readVersionIds(onTemp: (path: string[], uuid: string) => void): Promise<Set<VersionKey>> {
    const root = [...this.root, VERSIONS];
    const folders = ((await this.fs.list(root)) ?? []).filter(
      (entry) => entry.kind === 'directory' && /^[0-9a-f]{2}$/.test(entry.name),
    );
    const ids = new Set<VersionKey>();
    await forEachLimited(folders, PARALLEL, async ({ name: folder }) => {
      for (const entry of (await this.fs.list([...root, folder])) ?? []) {
        const { name } = entry;
        if (entry.kind !== 'file') continue;
        // Checked cheapest first: a cold open of 100,000 versions runs this 100,000 times.
        if (name.length === 64 + FILE_SUFFIX.length && name.startsWith(folder)) {
          const id = name.slice(0, 64);
          if (name.endsWith(FILE_SUFFIX) && VERSION_ID.test(id)) ids.add(id);
        } else if (name.endsWith('.tmp')) {
          const temp = TEMP_NAME.exec(name);
          if (temp) onTemp([...root, folder, name], temp[1]!);
        }
      }
    });
    return ids;
  }

  /** Writes a journal's ops to their files. Idempotent, so a replay after a crash is safe. */
  async #apply(ops: readonly JournalOp[]): Promise<void> {
    const { sync } = this.#options;
    const touched = new Map<string, string[]>();
    const touch = (path: string[]) => {
      const folder = path.slice(0, -1);
      touched.set(folder.join('/'), folder);
    };
    await forEachLimited(ops, PARALLEL, async (op) => {
      if (op.kind === 'put') {
        const path = this.entryPath(op.key);
        await this.fs.writeFile(path, op.value, { sync });
        touch(path);
      } else if (op.kind === 'delete') {
        const path = this.entryPath(op.key);
        await removeAndPrune(this.fs, path, this.root.length + 1);
        touch(path);
      }
    });
    const gone = ops.filter((op) => op.kind === 'deleteVersion').map((op) => op.id);
    await forEachLimited(gone, PARALLEL, async (id) => {
      await this.fs.removeFile(this.versionPath(id));
      touch(this.versionPath(id));
    });
    if (sync) {
      await forEachLimited([...touched.values()], PARALLEL, (f) => this.fs.syncFolder(f));
    }
  }

  /** Commits entry writes and version deletes as one: a journal first when more than one. */
  protected async writeEntries(
    writes: EntryWrites,
    deleteVersions: readonly VersionKey[],
  ): Promise<void> {
    const ops: JournalOp[] = [];
    for (const [key, value] of writes) {
      ops.push(value === undefined ? { kind: 'delete', key } : { kind: 'put', key, value });
    }
    for (const id of new Set(deleteVersions)) ops.push({ kind: 'deleteVersion', id });
    if (ops.length === 0) return;
    // One file renamed into place is atomic by itself; a handle's new file is not.
    const journaled = ops.length > 1 || !this.fs.atomicCreate;
    const journal = [...this.root, JOURNAL, `${timeUuid()}.minca`];
    if (journaled) {
      await this.fs.writeFile(journal, await encodeJournal(ops), { sync: this.#options.sync });
      if (this.#options.sync) await this.fs.syncFolder(journal.slice(0, -1));
    }
    this.committed(writes);
    for (const [key, value] of writes) {
      if (value === undefined) this.#keys?.delete(key);
      else this.#keys?.add(key);
    }
    for (const id of deleteVersions) this.#versions?.delete(id);
    await this.#apply(ops);
    this.applied(writes);
    if (journaled) await this.fs.removeFile(journal);
  }

  protected async readEntry(key: string): Promise<Uint8Array | undefined> {
    if (this.#keys && !this.#keys.has(key)) return undefined;
    return this.fs.readFile(this.entryPath(key));
  }

  async list(prefix: string): Promise<string[]> {
    this.check();
    if (typeof prefix !== 'string') throw new TypeError('prefix must be a string');
    if (this.#keys) return this.#keys.list(prefix);
    return this.consistently(() => this.walk(prefix));
  }

  /** Shared mode: the keys on disk under `prefix`, with this adapter's writes not yet applied. */
  protected async walk(prefix: string): Promise<string[]> {
    if (this.#keys) return this.#keys.list(prefix);
    const found = new SortedKeys(await readKeyTree(this.fs, [...this.root, ENTRIES], { prefix }));
    return this.withPending(found, prefix);
  }

  protected async readVersion(id: VersionKey): Promise<Uint8Array | undefined> {
    if (this.#versions && !this.#versions.has(id)) return undefined;
    return this.fs.readFile(this.versionPath(id));
  }

  async #putVersionFile(id: VersionKey, body: Uint8Array): Promise<void> {
    await this.#withVersion(id, () =>
      this.fs.writeFile(this.versionPath(id), body, { sync: this.#options.sync }),
    );
  }

  protected async storeVersion(id: VersionKey, body: Uint8Array): Promise<void> {
    await this.#putVersionFile(id, body);
    if (this.#options.sync) await this.fs.syncFolder(this.versionFolder(id));
    this.#versions?.add(id);
  }

  protected async removeVersion(id: VersionKey): Promise<void> {
    await this.#withVersion(id, async () => {
      this.#versions?.delete(id);
      await this.fs.removeFile(this.versionPath(id));
    });
  }

  protected async writeCommit(
    bodies: Array<readonly [VersionKey, Uint8Array]>,
    entries: EntryWrites,
    deleteVersions: readonly VersionKey[],
  ): Promise<void> {
    const versions = new Map(bodies);
    // Versions first, durable, so no entry ever names a body that isn't there.
    await forEachLimited([...versions], PARALLEL, ([id, body]) => this.#putVersionFile(id, body));
    if (this.#options.sync) {
      const folders = new Set([...versions.keys()].map((id) => id.slice(0, 2)));
      await forEachLimited([...folders], PARALLEL, (f) =>
        this.fs.syncFolder([...this.root, VERSIONS, f]),
      );
    }
    for (const id of versions.keys()) this.#versions?.add(id);
    await this.writeEntries(entries, deleteVersions);
  }

  async reload(): Promise<boolean> {
    this.check();
    return this.exclusive(async () => {
      await this.#recover(true);
      return this.#load();
    });
  }

  protected async release(): Promise<void> {
    await Promise.all(this.#versionLocks.values());
    this.#onClose?.();
  }
}
