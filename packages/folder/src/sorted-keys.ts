/** A set of keys that lists a prefix in UTF-16 code unit order, sorting only after a change. */
export class SortedKeys {
  readonly #keys = new Set<string>();
  #sorted: string[] | undefined = [];

  constructor(keys: Iterable<string> = []) {
    for (const key of keys) this.#keys.add(key);
    this.#sorted = undefined;
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }

  add(key: string): void {
    if (this.#keys.has(key)) return;
    this.#keys.add(key);
    this.#sorted = undefined;
  }

  delete(key: string): void {
    if (this.#keys.delete(key)) this.#sorted = undefined;
  }

  /** Every key starting with `prefix`, sorted. */
  list(prefix: string): string[] {
    // The default sort compares UTF-16 code units, which is the adapter contract's order.
    this.#sorted ??= [...this.#keys].sort();
    const sorted = this.#sorted;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < sorted.length && sorted[end]!.startsWith(prefix)) end++;
    return sorted.slice(lo, end);
  }
}
