/**
 * Which files nothing names, from the store's entries alone (spec 05 §5.2, §16.6.4): a file
 * with a list here (`f/<id>/list`) is named while some `y/<id>/<collection>/<record>/<version>`
 * has its `x/<collection>/<record>/<version>` there, that is, while a version that may be a
 * head names it. An adapter answers it in one query (`unnamedFiles`, SQLite's is one
 * statement); any other in three prefix listings. Nothing here reads a body or a record.
 */
import type { EntryWrite, StorageAdapter } from './adapter.js';
import { VERSION_HEX } from './ids.js';
import {
  decodeFiles,
  FILE_INDEX_PREFIX,
  NAMED_FILE_PREFIX,
  NAMED_FILE_VALUE,
  namedFileKey,
} from './index-entries.js';
import type { Store } from './store.js';

/** Set once every version held that names files has its `y/` entries (old stores get them once). */
export const NAMED_INDEX_KEY = 'y';
export const NAMED_INDEX_VALUE: Uint8Array = new Uint8Array([1]);

const LIST_KEY = /^f\/([0-9a-f]{64})\/list$/;

/**
 * The ids of files with a list in the store that no version that may be a head names, sorted,
 * through {@link StorageAdapter.unnamedFiles} where the adapter has it.
 */
export async function unnamedFiles(adapter: StorageAdapter): Promise<string[]> {
  if (adapter.unnamedFiles) return adapter.unnamedFiles();
  const heads = new Set(
    (await adapter.list(FILE_INDEX_PREFIX)).map((k) => k.slice(FILE_INDEX_PREFIX.length)),
  );
  const named = new Set<string>();
  for (const key of await adapter.list(NAMED_FILE_PREFIX)) {
    const file = key.slice(NAMED_FILE_PREFIX.length, NAMED_FILE_PREFIX.length + 64);
    if (key[NAMED_FILE_PREFIX.length + 64] !== '/' || !VERSION_HEX.test(file)) continue;
    if (heads.has(key.slice(NAMED_FILE_PREFIX.length + 65))) named.add(file);
  }
  const out: string[] = [];
  for (const key of await adapter.list('f/')) {
    const id = LIST_KEY.exec(key)?.[1];
    if (id && !named.has(id)) out.push(id);
  }
  return out.sort();
}

/**
 * The records with a version naming files that may still be a head (`x/`, spec 05 §5.2): the
 * only records whose files a space keeps, found in one listing of those entries.
 */
export async function fileRecords(
  adapter: StorageAdapter,
): Promise<Array<{ collection: string; record: string }>> {
  const out: Array<{ collection: string; record: string }> = [];
  let last = '';
  for (const key of await adapter.list(FILE_INDEX_PREFIX)) {
    const [, collection, record] = key.split('/');
    if (!collection || !record || `${collection}/${record}` === last) continue;
    last = `${collection}/${record}`;
    out.push({ collection, record });
  }
  return out;
}

/**
 * Gives a store from before `y/` entries its `y/` entries, from its `x/` entries, once: until
 * then {@link unnamedFiles} would take every file of theirs for unnamed. Versions written since
 * write their own (store-plan.ts); a `y/` entry written here for a version superseded meanwhile
 * names nothing, since its `x/` is gone.
 */
export async function completeNamedIndex(store: Store): Promise<void> {
  if (await store.get(NAMED_INDEX_KEY)) return;
  const entries: EntryWrite[] = [];
  for (const key of await store.list(FILE_INDEX_PREFIX)) {
    const [, collection, record, version, extra] = key.split('/');
    if (!collection || !record || !version || extra !== undefined) continue;
    const bytes = await store.get(key);
    if (!bytes) continue;
    let files: readonly string[];
    try {
      files = decodeFiles(bytes);
    } catch {
      continue; // a damaged entry names nothing; the store reports it when it reads its index
    }
    for (const file of files)
      entries.push({
        key: namedFileKey(file, collection, record, version),
        value: NAMED_FILE_VALUE,
      });
  }
  entries.push({ key: NAMED_INDEX_KEY, value: NAMED_INDEX_VALUE });
  await store.commit({ entries });
}
