/**
 * The integrity check crash tests run over a store an interrupted writer left: every version
 * the index names is there, and no value is torn.
 */
import type { StorageAdapter } from '../adapter.js';
import { readVersions } from '../store-io.js';
import { isCheckedValue } from './checked-value.js';

/** For crash tests: checks a store an interrupted writer left. */
export interface IntegrityReport {
  /** True when `problems` is empty. */
  ok: boolean;
  /** One line per problem found, naming the key or version. */
  problems: string[];
  /** Entries read. */
  entries: number;
  /** Version bodies found that index entries name (each counted once). */
  versions: number;
}

export interface IntegrityOptions {
  /**
   * Whether a value is whole. Called for every entry, and for every version body named by an
   * index entry with that entry's key. By default values under `v/` and `t/` (so every body)
   * must pass {@link isCheckedValue}, and any other value passes.
   */
  checkValue?: (key: string, value: Uint8Array) => boolean;
}

const READ_GROUP = 256;
const INDEX_KEY = /^v\/(.+)\/([0-9a-f]{64})$/;

function defaultCheck(key: string, value: Uint8Array): boolean {
  return !(key.startsWith('v/') || key.startsWith('t/')) || isCheckedValue(value);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Reads the whole store through the required methods and reports what is wrong: an unsorted or
 * duplicated listing, a listed key that fails to read, a torn value, an index entry
 * (`v/<collection>/<64-hex id>`) whose version body is missing or torn. A key listed but read
 * as absent is not a problem (a delete may land between list and get).
 */
export async function checkStoreIntegrity(
  adapter: StorageAdapter,
  options: IntegrityOptions = {},
): Promise<IntegrityReport> {
  const checkValue = options.checkValue ?? defaultCheck;
  const problems: string[] = [];
  let keys: string[];
  try {
    keys = await adapter.list('');
  } catch (error) {
    return {
      ok: false,
      problems: [`list('') failed: ${describe(error)}`],
      entries: 0,
      versions: 0,
    };
  }
  for (let i = 1; i < keys.length; i++) {
    if (!(keys[i - 1]! < keys[i]!)) {
      problems.push(`list is not sorted and unique at ${JSON.stringify(keys[i])}`);
    }
  }
  let entries = 0;
  const named = new Map<string, string>(); // version id -> the index key naming it first
  // Reads in bounded groups: in parallel for speed, bounded so a huge store can't flood the adapter.
  for (let start = 0; start < keys.length; start += READ_GROUP) {
    const group = keys.slice(start, start + READ_GROUP);
    const values = await Promise.all(
      group.map((key) =>
        adapter.get(key).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
      ),
    );
    group.forEach((key, i) => {
      const read = values[i]!;
      if ('error' in read) {
        problems.push(`get(${JSON.stringify(key)}) failed: ${describe(read.error)}`);
        return;
      }
      if (read.value === undefined) return;
      entries++;
      if (!checkValue(key, read.value)) problems.push(`torn value at ${JSON.stringify(key)}`);
      if (key.startsWith('v/')) {
        const match = INDEX_KEY.exec(key);
        if (!match) problems.push(`index key ${JSON.stringify(key)} does not name a version`);
        else if (!named.has(match[2]!)) named.set(match[2]!, key);
      }
    });
  }
  let versions = 0;
  const ids = [...named.keys()];
  let bodies: Array<Uint8Array | undefined>;
  try {
    bodies = await readVersions(adapter, ids);
  } catch (error) {
    problems.push(`reading ${ids.length} version bodies failed: ${describe(error)}`);
    bodies = [];
  }
  bodies.forEach((body, i) => {
    const key = named.get(ids[i]!)!;
    if (body === undefined) problems.push(`${JSON.stringify(key)} names a missing version`);
    else {
      versions++;
      if (!checkValue(key, body)) problems.push(`torn version body ${ids[i]}`);
    }
  });
  return { ok: problems.length === 0, problems, entries, versions };
}
