/** A set that forgets its oldest member past `max`: what a peer can grow stays bounded. */
export class BoundedSet {
  readonly #items = new Set<string>();
  constructor(private readonly max: number) {}
  has(id: string): boolean {
    return this.#items.has(id);
  }
  add(id: string): void {
    this.#items.delete(id);
    this.#items.add(id);
    if (this.#items.size > this.max) this.#items.delete(this.#items.values().next().value!);
  }
  delete(id: string): void {
    this.#items.delete(id);
  }
  /** Empties the set, returning what it held, oldest first. */
  take(): string[] {
    const items = [...this.#items];
    this.#items.clear();
    return items;
  }
}
