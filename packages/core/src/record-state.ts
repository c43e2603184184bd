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

/** The versions of one record. */
export class RecordState {
  /** Versions no held version supersedes. */
  readonly heads = new Set<string>();
  /** Every id some held version supersedes, held or not yet. */
  readonly #superseded = new Set<string>();
  readonly versions = new Map<string, VersionMeta>();

  add(meta: VersionMeta): void {
    if (this.versions.has(meta.id)) return;
    this.versions.set(meta.id, meta);
    for (const old of meta.supersedes) {
      this.#superseded.add(old);
      this.heads.delete(old);
    }
    if (!this.#superseded.has(meta.id)) this.heads.add(meta.id);
  }

  /** The winning head: the latest timestamp, then the greatest id. */
  winner(): VersionMeta | undefined {
    let best: VersionMeta | undefined;
    for (const id of this.heads) {
      const meta = this.versions.get(id)!;
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
    const winner = this.winner();
    return [...this.heads]
      .filter((id) => id !== winner?.id)
      .map((id) => this.versions.get(id)!)
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
