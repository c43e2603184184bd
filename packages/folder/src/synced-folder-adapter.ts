/**
 * A store in a folder that a sync service carries (a data folder's registry), spec 05 §14.3.
 *
 * ```
 * <store>/entries.d/<key, named by keyPath>   an entry's value, framed (frame.ts)
 * <store>/versions.d/<id[0..2]>/<id>.minca    a version body, framed
 * ```
 *
 * Unlike a plain directory store it keeps nothing in the folder but entries and bodies: a sync
 * service carries files one by one, in any order, so a journal there would reach another device
 * before or after the files it names, and a crashed writer's journal replayed later would undo
 * newer writes. Instead:
 *
 * - Every read goes to the disk (several processes and devices write the folder).
 * - Each file is framed with a checksum: a file still being copied, or the empty file a browser
 *   makes before its bytes land, reads as absent rather than as damage.
 * - A key whose file is missing or torn is read from a sync service's conflict copy of it,
 *   when there is one; deleting a key removes its conflict copies too, so none brings it back.
 * - A batch of several writes is journaled in this device's own stores (`journal`), never in
 *   the folder. Replaying it after a crash writes a file only if it still holds what it held
 *   before the batch (or already the new value): a newer write by anyone else wins.
 *
 * Listing reads every value, so a key is listed only once its file is whole: a registry is
 * small. To another process a batch of several writes lands one file at a time; within this
 * one it is all or nothing. The registry writes one entry per change, each whole by itself.
 */
import {
  decodeStrict,
  encodeCbor,
  hashId,
  MincaError,
  type StorageAdapter,
  type VersionKey,
} from '@minca/core';
import { conflictOf } from './conflict-names.js';
import { ENTRIES, type EntryWrites, FileBackedStore, PARALLEL } from './file-backed-store.js';
import { type FolderFs, isStale, removeAndPrune } from './folder-fs.js';
import { frame, unframe } from './frame.js';
import { readKeyTree } from './key-tree.js';
import { forEachLimited } from './parallel.js';
import { SortedKeys } from './sorted-keys.js';
import { timeUuid } from './time-uuid.js';

/** Prefix of this store's journal records in the journal store. */
const JOURNAL_PREFIX = 'j/';
/** A journal holds at most what one batch wrote. */
const MAX_JOURNAL_BYTES = 512 * 1024 * 1024;

/** How a synced folder store behaves. */
export interface SyncedFolderOptions {
  /** Flush each file and folder to the device before a write resolves. */
  sync: boolean;
  onProblem: (problem: MincaError) => void;
}

/** One write of a batch as journaled: kind, key (or version id), value, digest before. */
type JournalOp = [
  kind: 0 | 1 | 2,
  key: string,
  value: Uint8Array | null,
  before: Uint8Array | null,
];

/** What identifies a file's bytes for replay: the first 16 bytes of their SHA-256. */
function digest(bytes: Uint8Array | undefined): Uint8Array | null {
  return bytes === undefined ? null : hashId(bytes).slice(0, 16);
}

function sameDigest(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function decodeJournal(bytes: Uint8Array): JournalOp[] {
  const ops = decodeStrict(bytes, { maxBytes: MAX_JOURNAL_BYTES, maxDepth: 2 }) as unknown;
  const bytesOrNull = (x: unknown) => x === null || x instanceof Uint8Array;
  if (
    !Array.isArray(ops) ||
    !ops.every(
      (op) =>
        Array.isArray(op) &&
        op.length === 4 &&
        (op[0] === 0 || op[0] === 1 || op[0] === 2) &&
        typeof op[1] === 'string' &&
        bytesOrNull(op[2]) &&
        bytesOrNull(op[3]),
    )
  ) {
    throw new MincaError('malformed', 'not a synced folder journal');
  }
  return ops as JournalOp[];
}

export class SyncedFolderAdapter extends FileBackedStore {
  readonly #journal: StorageAdapter;
  readonly #options: SyncedFolderOptions;

  private constructor(
    fs: FolderFs,
    root: readonly string[],
    label: string,
    journal: StorageAdapter,
    options: SyncedFolderOptions,
  ) {
    super(fs, root, `folder store ${label}`);
    this.#journal = journal;
    this.#options = options;
  }

  /** Opens the store in folder `root`, finishing batches a crash of this device left. */
  static async open(
    fs: FolderFs,
    root: readonly string[],
    label: string,
    journal: StorageAdapter,
    options: SyncedFolderOptions,
  ): Promise<SyncedFolderAdapter> {
    const adapter = new SyncedFolderAdapter(fs, root, label, journal, options);
    await fs.makeFolder(root);
    await adapter.#recover();
    return adapter;
  }

  #pathOf(op: JournalOp): string[] {
    return op[0] === 2 ? this.versionPath(op[1]) : this.entryPath(op[1]);
  }

  /** Replays this device's journals of batches a crash cut short, oldest first. */
  async #recover(): Promise<void> {
    for (const key of await this.#journal.list(JOURNAL_PREFIX)) {
      const bytes = await this.#journal.get(key);
      if (bytes === undefined) continue;
      let ops: JournalOp[];
      try {
        ops = decodeJournal(bytes);
      } catch (error) {
        this.#options.onProblem(
          new MincaError(
            'malformed',
            `${this.name}: journal ${key} does not decode; it was removed`,
            {
              cause: error,
            },
          ),
        );
        await this.#journal.batch([{ key, value: undefined }]);
        continue;
      }
      await forEachLimited(ops, PARALLEL, async (op) => {
        const now = digest(await this.fs.readFile(this.#pathOf(op)));
        const after = op[0] === 0 ? digest(frame(op[2]!)) : null;
        // Someone wrote the file since the batch began: theirs is newer, leave it.
        if (sameDigest(now, op[3]) || sameDigest(now, after)) await this.#applyOp(op);
      });
      await this.#syncFolders(ops);
      await this.#journal.batch([{ key, value: undefined }]);
    }
  }

  /** Writes one op's file. Idempotent. */
  async #applyOp(op: JournalOp): Promise<void> {
    const path = this.#pathOf(op);
    if (op[0] === 0) {
      await this.fs.writeFile(path, frame(op[2]!), { sync: this.#options.sync });
    } else {
      await this.#removeWithCopies(path, op[0] === 1 ? this.root.length + 1 : path.length - 1);
    }
  }

  /** Removes a file and the conflict copies of it beside it, then folders it left empty. */
  async #removeWithCopies(path: string[], keep: number): Promise<void> {
    const folder = path.slice(0, -1);
    const name = path[path.length - 1]!;
    for (const entry of (await this.fs.list(folder)) ?? []) {
      if (entry.kind === 'file' && conflictOf(entry.name) === name) {
        await this.fs.removeFile([...folder, entry.name]);
      }
    }
    await removeAndPrune(this.fs, path, keep);
  }

  async #syncFolders(ops: readonly JournalOp[]): Promise<void> {
    if (!this.#options.sync) return;
    const folders = new Map<string, string[]>();
    for (const op of ops) {
      const folder = this.#pathOf(op).slice(0, -1);
      folders.set(folder.join('/'), folder);
    }
    await forEachLimited([...folders.values()], PARALLEL, (f) => this.fs.syncFolder(f));
  }

  /** The value framed in the file at `path`, else in a whole conflict copy of it. */
  async #readFramed(path: readonly string[]): Promise<Uint8Array | undefined> {
    const bytes = await this.fs.readFile(path);
    const value = bytes && unframe(bytes);
    if (value) return value;
    if (bytes && bytes.length > 0) {
      this.#options.onProblem(
        new MincaError(
          'malformed',
          `${this.name}: ${path.slice(this.root.length).join('/')} is not ` +
            'whole (still being copied?); it reads as its conflict copy or as absent',
        ),
      );
    }
    const folder = path.slice(0, -1);
    const name = path[path.length - 1]!;
    const copies = ((await this.fs.list(folder)) ?? [])
      .filter((entry) => entry.kind === 'file' && conflictOf(entry.name) === name)
      .map((entry) => entry.name)
      .sort()
      .reverse();
    // The greatest name first, so every device picks the same copy.
    for (const copy of copies) {
      const copied = await this.fs.readFile([...folder, copy]);
      const inCopy = copied && unframe(copied);
      if (inCopy) return inCopy;
    }
    return undefined;
  }

  protected async writeEntries(
    writes: EntryWrites,
    deleteVersions: readonly VersionKey[],
  ): Promise<void> {
    const ops: JournalOp[] = [];
    for (const [key, value] of writes) {
      ops.push(value === undefined ? [1, key, null, null] : [0, key, value, null]);
    }
    for (const id of new Set(deleteVersions)) ops.push([2, id, null, null]);
    if (ops.length === 0) return;
    let journalKey: string | undefined;
    if (ops.length > 1) {
      await forEachLimited(ops, PARALLEL, async (op) => {
        op[3] = digest(await this.fs.readFile(this.#pathOf(op)));
      });
      journalKey = `${JOURNAL_PREFIX}${timeUuid()}`;
      await this.#journal.batch([{ key: journalKey, value: encodeCbor(ops) }]);
    }
    this.committed(writes);
    try {
      await forEachLimited(ops, PARALLEL, (op) => this.#applyOp(op));
      await this.#syncFolders(ops);
    } finally {
      this.applied(writes);
    }
    if (journalKey) await this.#journal.batch([{ key: journalKey, value: undefined }]);
  }

  protected readEntry(key: string): Promise<Uint8Array | undefined> {
    return this.#readFramed(this.entryPath(key));
  }

  /** Keys whose value reads whole: one still being copied in is not listed until it is. */
  async list(prefix: string): Promise<string[]> {
    return (await this.entries(prefix)).map(([key]) => key);
  }

  protected async walk(prefix: string): Promise<string[]> {
    const stale: string[][] = [];
    const found = new SortedKeys(
      await readKeyTree(this.fs, [...this.root, ENTRIES], {
        prefix,
        withConflicts: true,
        onTemp: (path, uuid) => isStale(uuid) && stale.push(path),
      }),
    );
    await forEachLimited(stale, PARALLEL, (path) => this.fs.removeFile(path));
    return this.withPending(found, prefix);
  }

  protected readVersion(id: VersionKey): Promise<Uint8Array | undefined> {
    return this.#readFramed(this.versionPath(id));
  }

  protected async storeVersion(id: VersionKey, body: Uint8Array): Promise<void> {
    const path = this.versionPath(id);
    await this.fs.writeFile(path, frame(body), { sync: this.#options.sync });
    if (this.#options.sync) await this.fs.syncFolder(path.slice(0, -1));
  }

  protected async removeVersion(id: VersionKey): Promise<void> {
    const path = this.versionPath(id);
    await this.#removeWithCopies(path, path.length - 1);
  }

  protected async writeCommit(
    versions: Array<readonly [VersionKey, Uint8Array]>,
    entries: EntryWrites,
    deleteVersions: readonly VersionKey[],
  ): Promise<void> {
    // Bodies first, so no entry ever names one that isn't there.
    await forEachLimited(versions, PARALLEL, ([id, body]) => this.storeVersion(id, body));
    await this.writeEntries(entries, deleteVersions);
  }

  /** Nothing is kept in memory, so there is nothing to read again. */
  async reload(): Promise<void> {
    this.check();
  }

  protected async release(): Promise<void> {
    await this.#journal.close?.();
  }
}
