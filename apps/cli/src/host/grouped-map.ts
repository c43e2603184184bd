/**
 * A map whose entries are also found by a group each value names (an account): a host's
 * decisions look at one account's spaces or subscriptions, and with many accounts a scan of
 * every entry at each decision was most of its cost.
 */
export class GroupedMap<V> {
  readonly #all = new Map<string, V>();
  readonly #groups = new Map<string, Map<string, V>>();

  /** `groupOf` names a value's group; a value's group is read when it is set. */
  constructor(private readonly groupOf: (value: V) => string) {}

  get size(): number {
    return this.#all.size;
  }

  get(key: string): V | undefined {
    return this.#all.get(key);
  }

  has(key: string): boolean {
    return this.#all.has(key);
  }

  keys(): IterableIterator<string> {
    return this.#all.keys();
  }

  values(): IterableIterator<V> {
    return this.#all.values();
  }

  set(key: string, value: V): void {
    this.delete(key);
    this.#all.set(key, value);
    const group = this.groupOf(value);
    const entries = this.#groups.get(group);
    if (entries) entries.set(key, value);
    else this.#groups.set(group, new Map([[key, value]]));
  }

  delete(key: string): boolean {
    const value = this.#all.get(key);
    if (value === undefined) return false;
    this.#all.delete(key);
    const group = this.groupOf(value);
    const entries = this.#groups.get(group);
    entries?.delete(key);
    if (entries?.size === 0) this.#groups.delete(group);
    return true;
  }

  /** The keys of group `group`'s entries. */
  keysOf(group: string): string[] {
    return [...(this.#groups.get(group)?.keys() ?? [])];
  }

  /** The values of group `group`'s entries. */
  valuesOf(group: string): V[] {
    return [...(this.#groups.get(group)?.values() ?? [])];
  }
}
