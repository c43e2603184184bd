/**
 * Which versions of a record are its heads, and which head wins. Derived only from the set of
 * versions held, never from the order they arrived in, so every node holding the same set
 * agrees. Spec 05 §4.
 */

/** What the store keeps in memory about one version: enough to judge heads without its body. */
export interface VersionMeta {
  id: string;
  record: string;
  supersedes: readonly string[];
  timestamp: number;
  author: string;
  files: readonly string[];
  deleted: boolean;
}

/** What a record holds before its first version; frozen, so nothing can add to it. */
const NONE: VersionMeta[] = Object.freeze([]) as never;

/** Past this many versions a record keeps a set of the ids they supersede, not a scan. */
const SCAN_LIMIT = 8;

/**
 * The versions of one record. Most records have one or a few versions, and a host keeps a
 * record state per record it holds (spec 05 §7.3), so these are arrays, not maps and sets.
 */
export class RecordState {
  // Both start as the one shared empty array: `add` replaces it by its first version's own,
  // never pushing onto it, so a record costs no two arrays thrown away at once.
  #versions: VersionMeta[] = NONE;
  #heads: VersionMeta[] = NONE;
  /** Every id some held version supersedes: only once the record has many versions. */
  #superseded: Set<string> | undefined;

  /** Every version held, in the order they came. */
  get versions(): readonly VersionMeta[] {
    return this.#versions;
  }

  /** Versions no held version supersedes. */
  get heads(): readonly VersionMeta[] {
    return this.#heads;
  }

  /** Adds a version not held yet (its collection checks that, by id). */
  add(meta: VersionMeta): void {
    // A literal holds one element where a push onto [] reserves seventeen.
    if (this.#versions.length === 0) this.#versions = [meta];
    else this.#versions.push(meta);
    if (this.#superseded) for (const old of meta.supersedes) this.#superseded.add(old);
    else if (this.#versions.length > SCAN_LIMIT)
      this.#superseded = new Set(this.#versions.flatMap((m) => m.supersedes));
    if (meta.supersedes.length > 0)
      this.#heads = this.#heads.filter((head) => !meta.supersedes.includes(head.id));
    if (!this.#isSuperseded(meta.id))
      this.#heads = this.#heads.length === 0 ? [meta] : [...this.#heads, meta];
  }

  #isSuperseded(id: string): boolean {
    if (this.#superseded) return this.#superseded.has(id);
    return this.#versions.some((m) => m.supersedes.includes(id));
  }

  /** The winning head: the latest timestamp, then the greatest id. */
  winner(): VersionMeta | undefined {
    let best: VersionMeta | undefined;
    for (const meta of this.#heads) {
      if (
        !best ||
        meta.timestamp > best.timestamp ||
        (meta.timestamp === best.timestamp && meta.id > best.id)
      ) {
        best = meta;
      }
    }
    return best;
  }

  /** The heads that did not win, newest first. */
  conflicts(): VersionMeta[] {
    // Most records have one head: it wins, and nothing is in conflict.
    if (this.#heads.length <= 1) return [];
    const winner = this.winner();
    return this.#heads
      .filter((meta) => meta !== winner)
      .sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : -1));
  }
}

/** The records of one collection. */
export class CollectionState {
  readonly records = new Map<string, RecordState>();
  readonly versions = new Map<string, VersionMeta>();

  add(meta: VersionMeta): boolean {
    if (this.versions.has(meta.id)) return false;
    this.versions.set(meta.id, meta);
    let record = this.records.get(meta.record);
    if (!record) this.records.set(meta.record, (record = new RecordState()));
    record.add(meta);
    return true;
  }
}
