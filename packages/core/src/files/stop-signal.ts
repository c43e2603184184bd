/**
 * A signal a fetch fires when it ends, so asks still out (a peer's timer, a late answer) are
 * let go of at once. It also fires when the caller's signal does. Core sees no DOM types, so
 * this is the few lines of `AbortController` a fetch needs.
 */
import type { AbortSignalLike } from './abort.js';

export class StopSignal implements AbortSignalLike {
  #aborted = false;
  readonly #listeners = new Set<() => void>();
  readonly #parent: AbortSignalLike | undefined;
  readonly #onParent = () => this.stop();

  constructor(parent?: AbortSignalLike) {
    this.#parent = parent;
    if (parent?.aborted) this.#aborted = true;
    else parent?.addEventListener('abort', this.#onParent);
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.delete(listener);
  }

  /** Fires once: every listener is told, and the caller's signal is let go of. */
  stop(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#parent?.removeEventListener('abort', this.#onParent);
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    for (const listener of listeners) listener();
  }
}
