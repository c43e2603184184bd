/**
 * The entries (not version index entries) a store read or wrote lately (spec 05 §5.4): up to
 * 4,096, values of 16 KiB and less, the one used longest ago dropped first. `null` means known
 * absent.
 */

/** Entries larger than this (file chunks) are read from the adapter each time, not kept. */
const MAX_KEPT_ENTRY_BYTES = 16 * 1024;
/** Entries kept at most. */
const KEPT_ENTRIES = 4096;

export class KeptEntries {
  /** In order of use, the one used longest ago first. */
  readonly #entries = new Map<string, Uint8Array | null>();

  /**
   * The value kept under `key`, now the one used last: bytes, `null` when known absent,
   * `undefined` when not kept.
   */
  get(key: string): Uint8Array | null | undefined {
    const known = this.#entries.get(key);
    if (known !== undefined) this.keep(key, known);
    return known;
  }

  /** Keeps `value` (`null`: absent) under `key`, unless it is too large to keep. */
  keep(key: string, value: Uint8Array | null): void {
    this.#entries.delete(key);
    if (value && value.length > MAX_KEPT_ENTRY_BYTES) return;
    this.#entries.set(key, value);
    if (this.#entries.size > KEPT_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
  }

  clear(): void {
    this.#entries.clear();
  }
}
