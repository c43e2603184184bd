/**
 * What a device keeps of a space's files (the product page's "What a device keeps", spec 05
 * §16.6): which files the standing records name, fetching ahead what fits the limits, dropping
 * what nothing names, and keeping within `keep` by dropping the longest unused. Passes run about
 * 2 s after records change, one at a time.
 */
import type { SpaceView } from '../space/space-view.js';
import { clearTimer, setTimer } from '../timers.js';
import type { SpaceChunks } from './chunk-shelf.js';
import { sealedSize } from './chunks.js';
import type { FileActivity } from './file-activity.js';
import type { FileStore, HeldFile } from './file-store.js';
import {
  ADD_CUT_SHORT_MS,
  FILES_AFTER_CHANGE_MS,
  type FileLimits,
  KEEP_DOWN_TO,
  NOBODY_HAD_MS,
  UNNAMED_OWN_MS,
} from './limits.js';
import type { FileSource } from './source.js';

/** What a space's files need of the node. */
export interface SpaceFilesContext {
  now(): number;
  limits(): FileLimits;
  /** `fetchFiles: 'all'`: fetch and keep every named file (carriers, hosts). */
  fetchAll: boolean;
  /** Where to fetch from, in order: connected peers first, then the node's other sources. */
  sources(): FileSource[];
  /** The set of files held whole or named here may have changed. */
  changed(): void;
  /** Calls `listener` when the files held whole or named may have changed; gives the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** The node's shelf for this space's chunks, beside the database (chunk-shelf.ts). */
  chunks?: SpaceChunks;
}

export class KeepPolicy {
  #passTimer: unknown;
  /** When the pass timer set by {@link recordsChanged} is due, by `context.now()`. */
  #passDue: number | undefined;
  /** When the first change not yet passed over came. */
  #firstChange: number | undefined;
  #passing: Promise<void> | undefined;
  #passAgain = false;
  #closed = false;
  #named: Set<string> | undefined;
  /** Files nobody had when fetched ahead, and when. */
  readonly #nobodyHad = new Map<string, number>();

  constructor(
    private readonly space: SpaceView,
    private readonly files: FileStore,
    private readonly activity: FileActivity,
    private readonly context: SpaceFilesContext,
  ) {}

  /**
   * Records changed: ahead and drops run about 2 s after the last change (a steady stream of
   * changes still gets a pass every 4 s), so a relay that took the records in first has started
   * its own fetch when this node asks it.
   */
  recordsChanged(): void {
    this.#named = undefined;
    const now = this.context.now();
    this.#firstChange ??= now;
    const wait = Math.min(
      FILES_AFTER_CHANGE_MS,
      this.#firstChange + 2 * FILES_AFTER_CHANGE_MS - now,
    );
    const ms = Math.max(0, wait);
    // Changes in the same millisecond (puts one after another) move the pass to the same time:
    // the timer set for it stands, rather than being cleared and set again for each.
    if (this.#passTimer !== undefined && this.#passDue === now + ms) return;
    this.schedule(ms, true);
    this.#passDue = now + ms;
  }

  /** New limits: applied now (dropping past `keep`, fetching what now fits `ahead`). */
  limitsChanged(delayMs: number): void {
    this.schedule(delayMs);
    // Past keep, files go at once, even while a pass is busy fetching ahead.
    setTimer(() => {
      if (!this.#closed) void this.#keepWithinLimit().catch(() => undefined);
    }, delayMs);
  }

  close(): void {
    this.#closed = true;
    if (this.#passTimer !== undefined) clearTimer(this.#passTimer);
  }

  /** A file was fetched whole or read: it was had. */
  had(id: string): void {
    this.#nobodyHad.delete(id);
  }

  /** Files named by the live heads of records that stand. */
  async named(): Promise<Set<string>> {
    if (this.#named) return this.#named;
    const store = this.space.store;
    const named = new Set<string>();
    // Only records with a version naming files may name any (the store's `x/` entries).
    for (const { collection, record: id } of await store.fileRecords()) {
      const record = await store.record(collection, id);
      if (record) {
        const winner = record.winner();
        if (!winner || winner.deleted || !(await this.space.mayWrite(winner.author))) continue;
        for (const meta of record.heads) {
          if (meta.deleted || meta.files.length === 0) continue;
          if (meta !== winner && !(await this.space.mayWrite(meta.author))) continue;
          for (const f of meta.files) named.add(f);
        }
      }
    }
    this.#named = named;
    return named;
  }

  /** Runs a pass `ms` from now, unless one is due sooner; `postpone` moves a pending one. */
  schedule(ms: number, postpone = false): void {
    if (this.#closed) return;
    if (this.#passTimer !== undefined) {
      if (ms > 0 && !postpone) return;
      clearTimer(this.#passTimer);
    }
    this.#passDue = undefined;
    this.#passTimer = setTimer(() => {
      this.#passTimer = undefined;
      this.#firstChange = undefined;
      void this.pass().catch(() => undefined);
    }, ms);
  }

  /** Drops what nothing names, keeps within the limits, and fetches ahead. One at a time. */
  async pass(): Promise<void> {
    if (this.#passing) {
      this.#passAgain = true;
      return this.#passing;
    }
    this.#passing = (async () => {
      do {
        this.#passAgain = false;
        if (this.#closed) return;
        await this.#dropCutShort();
        await this.#dropUnnamed();
        await this.#keepWithinLimit();
        await this.#fetchAhead();
        await this.#keepWithinLimit();
        // What is named may have changed with the records, even where nothing was fetched.
        this.context.changed();
      } while (this.#passAgain && !this.#closed);
    })().finally(() => {
      this.#passing = undefined;
    });
    return this.#passing;
  }

  /** A file bigger than `keep` goes once read; the rest of the limit is checked soon. */
  async afterRead(id: string): Promise<void> {
    if (this.#closed || this.context.fetchAll) return;
    const file = this.files.get(id);
    if (
      file &&
      file.own === undefined &&
      !this.activity.isPinned(id) &&
      file.list &&
      sealedSize(file.list.size) > this.context.limits().keep
    ) {
      await this.files.drop(id, false);
      this.context.changed();
    }
    this.schedule(0);
  }

  /** Fetches a named file now, from every source (a host asked for one it doesn't have yet). */
  fetchNow(id: string): void {
    if (this.#closed) return;
    void this.#fetchUnread(id, this.context.sources()).catch(() => undefined);
  }

  /** A peer now shares the space: the files nobody had are asked of it. */
  async askNewPeer(source: FileSource): Promise<void> {
    for (const id of [...this.#nobodyHad.keys()]) {
      if (this.#closed) return;
      if (this.files.isWhole(id) || !(await this.named()).has(id)) {
        this.#nobodyHad.delete(id);
        continue;
      }
      await this.#fetchUnread(id, [source]);
    }
  }

  /**
   * Drops the chunks of adds from a stream that were cut short (a crash, a closed tab): not
   * running here, and not said to be running by another process for {@link ADD_CUT_SHORT_MS}.
   */
  async #dropCutShort(): Promise<void> {
    const now = this.context.now();
    for (const staged of [...this.files.staged()]) {
      if (this.activity.isPinned(staged.id) || now - staged.since < ADD_CUT_SHORT_MS) continue;
      await this.files.dropStaged(staged.id);
    }
  }

  /** Whether a file nothing names may go now: not in use, and not added here in the last 24 h. */
  #mayDrop(file: HeldFile, now: number): boolean {
    if (this.activity.isPinned(file.id)) return false;
    return !(file.own !== undefined && file.own > 0 && now - file.own < UNNAMED_OWN_MS);
  }

  async #dropUnnamed(): Promise<void> {
    const now = this.context.now();
    let changed = false;
    // First the files no head names at all, in one query of the store's `y/` and `x/` entries,
    // reading no record (where the adapter has that query: else the records below find them
    // at no more cost); then those named only by records that don't stand.
    const store = this.space.store;
    for (const id of store.findsUnnamedInOneQuery ? await store.unnamedFiles() : []) {
      const file = this.files.get(id);
      if (!file || !this.#mayDrop(file, now)) continue;
      await this.files.drop(id, true);
      this.#nobodyHad.delete(id);
      changed = true;
    }
    const named = await this.named();
    for (const file of [...this.files.all()]) {
      if (named.has(file.id)) {
        // Named now: from here on it follows records like any other.
        if (file.own !== undefined && file.own > 0) await this.files.setOwn(file.id, 0);
        continue;
      }
      if (!this.#mayDrop(file, now)) continue;
      await this.files.drop(file.id, true);
      this.#nobodyHad.delete(file.id);
      changed = true;
    }
    if (changed) this.context.changed();
  }

  /** Bytes of files this device didn't add. */
  #limited(): HeldFile[] {
    return [...this.files.all()].filter((f) => f.own === undefined && f.bytes > 0);
  }

  async #keepWithinLimit(): Promise<void> {
    if (this.context.fetchAll) return;
    const keep = this.context.limits().keep;
    const limited = this.#limited();
    let total = limited.reduce((sum, f) => sum + f.bytes, 0);
    if (total <= keep) return;
    const target = keep * KEEP_DOWN_TO;
    // A file never fetched whole goes first, then the longest unused.
    const whole = (f: HeldFile) => (this.files.isWhole(f.id) ? 1 : 0);
    const order = limited
      .filter((f) => !this.activity.isPinned(f.id))
      .sort((a, b) => whole(a) - whole(b) || (a.used ?? 0) - (b.used ?? 0));
    for (const file of order) {
      if (total <= target) break;
      total -= file.bytes;
      await this.files.drop(file.id, false);
    }
    this.context.changed();
  }

  async #fetchAhead(): Promise<void> {
    const now = this.context.now();
    for (const id of [...(await this.named())]) {
      if (this.#closed) return;
      if (this.files.isWhole(id)) continue;
      if (!this.context.fetchAll && this.files.wasDropped(id)) continue;
      const had = this.#nobodyHad.get(id);
      if (had !== undefined && now - had < NOBODY_HAD_MS) continue;
      const result = await this.#fetchUnread(id, this.context.sources());
      if (result === 'nobody') this.#nobodyHad.set(id, this.context.now());
    }
  }

  /** Fetches a file nobody is reading, if it fits the limits. */
  async #fetchUnread(id: string, sources: FileSource[]): Promise<string> {
    if (sources.length === 0) return 'nobody';
    this.activity.pin(id);
    try {
      if (this.space.fileRefusal && (await this.#refused(id, sources))) return 'stopped';
      const result = await this.activity.fetch(id, () => sources, {
        proceed: (list) => this.#fits(id, list.size),
      });
      if (result === 'whole') {
        await this.files.setUsed(id, this.context.now());
        this.#nobodyHad.delete(id);
        this.context.changed();
      }
      return result;
    } finally {
      this.activity.unpin(id);
    }
  }

  /**
   * Whether a holder's policy refuses the file's chunks. Their size is known from the list, so
   * the list is fetched first (a fetch that stops once it has it), then the policy asked.
   */
  async #refused(id: string, sources: FileSource[]): Promise<boolean> {
    if (!this.files.get(id)?.list)
      await this.activity.fetch(id, () => sources, { proceed: () => false });
    const file = this.files.get(id);
    if (!file?.list) return false; // nobody had the list: the fetch below finds that too
    const missing = sealedSize(file.list.size) - file.bytes;
    const held = [...this.files.all()].reduce((sum, f) => sum + f.bytes, 0);
    return (await this.space.fileRefusal!(id, missing, held)) !== undefined;
  }

  /** Whether a file of `size` is fetched unread: up to `ahead`, and within `keep` with the rest. */
  #fits(id: string, size: number): boolean {
    if (this.context.fetchAll) return true;
    const { ahead, keep } = this.context.limits();
    if (size > ahead) return false;
    const others = this.#limited().reduce((sum, f) => (f.id === id ? sum : sum + f.bytes), 0);
    return others + sealedSize(size) <= keep;
  }
}
