/**
 * What a storage adapter check runs in: it opens stores through the context's factory, can
 * simulate a restart, and closes everything it opened when the check ends.
 */
import type { StorageAdapter, StoreFactory } from '../adapter.js';

/** One storage adapter under test, as `setup()` gives it. */
export interface AdapterTestContext {
  /** A fresh, empty factory. */
  factory: StoreFactory;
  /**
   * A new factory over the same backing storage, as after a restart (the suite closes
   * `factory`'s stores and `factory` first). Omit when the storage lives only inside `factory`
   * (then the suite reopens through `factory.open` after closing the store).
   */
  reopen?: () => Promise<StoreFactory>;
  /** Frees everything (temp dirs, connections). */
  teardown?: () => Promise<void>;
}

/** Options of the storage adapter suite. */
export interface AdapterSuiteOptions {
  /** Also runs the heavier cases (10,000 versions). */
  large?: boolean;
}

/** The store path checks use when one store is enough. */
export const DEFAULT_PATH = 'spaces/conformance';

export class AdapterHarness {
  readonly large: boolean;
  #factory: StoreFactory;
  readonly #context: AdapterTestContext;
  readonly #open: StorageAdapter[] = [];

  constructor(context: AdapterTestContext, options: AdapterSuiteOptions = {}) {
    this.#context = context;
    this.#factory = context.factory;
    this.large = options.large ?? false;
  }

  get factory(): StoreFactory {
    return this.#factory;
  }

  /** Opens a store; the harness closes it at the end (or on {@link restart}). */
  async open(path: string = DEFAULT_PATH): Promise<StorageAdapter> {
    const adapter = await this.#factory.open(path);
    this.#open.push(adapter);
    return adapter;
  }

  /** Closes every open store, and with `reopen` the factory too, then gets a factory back. */
  async restart(): Promise<void> {
    await this.#closeStores();
    if (this.#context.reopen) {
      await this.#factory.close?.();
      this.#factory = await this.#context.reopen();
    }
  }

  async #closeStores(): Promise<void> {
    for (const adapter of this.#open.splice(0)) await adapter.close?.();
  }

  /** Closes the stores and the factory, then tears the context down. */
  async dispose(): Promise<void> {
    try {
      await this.#closeStores();
      await this.#factory.close?.();
    } finally {
      await this.#context.teardown?.();
    }
  }
}

/** A storage adapter check: throws when the adapter breaks the contract. */
export type AdapterCheck = (harness: AdapterHarness) => Promise<void>;

/**
 * Runs one check over a context and disposes of it after, whatever happened. A failure of the
 * check wins over a failure to dispose, since it is the one worth reading.
 */
export async function runAdapterCheck(
  check: AdapterCheck,
  context: AdapterTestContext,
  options?: AdapterSuiteOptions,
): Promise<void> {
  const harness = new AdapterHarness(context, options);
  try {
    await check(harness);
  } catch (error) {
    await harness.dispose().catch(() => {});
    throw error;
  }
  await harness.dispose();
}

/** The adapter with only its required methods, so store-io takes its fallback paths. */
export function requiredOnly(adapter: StorageAdapter): StorageAdapter {
  return {
    get: (key) => adapter.get(key),
    list: (prefix) => adapter.list(prefix),
    batch: (writes) => adapter.batch(writes),
    getVersion: (id) => adapter.getVersion(id),
    putVersion: (id, body) => adapter.putVersion(id, body),
    deleteVersion: (id) => adapter.deleteVersion(id),
  };
}
