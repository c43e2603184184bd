/**
 * What is made of a public key (a platform's verifier, an imported key), made once for each of
 * the last keys used: a version's author is usually one of a few, and making it costs about as
 * much as a check.
 */
import { latin1 } from './bytes.js';

/** Keys kept at most; the one added longest ago goes first. */
export const MAX_KEYS = 1024;

export class KeyCache<T> {
  readonly #made = new Map<string, T>();

  /** `make` is given a copy of the key; what it throws, {@link of} throws, keeping nothing. */
  constructor(private readonly make: (publicKey: Uint8Array) => T) {}

  of(publicKey: Uint8Array): T {
    const name = latin1(publicKey);
    let made = this.#made.get(name);
    if (made === undefined) {
      if (this.#made.size >= MAX_KEYS) this.#made.delete(this.#made.keys().next().value!);
      made = this.make(publicKey.slice());
      this.#made.set(name, made);
    }
    return made;
  }

  clear(): void {
    this.#made.clear();
  }
}
