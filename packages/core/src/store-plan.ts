/**
 * What a store writes for new versions (spec 05 §5.2): their index entries, the file entries of
 * those naming files (and, for the versions they supersede, none any more), the pages of their
 * collections' sets where they land, and the summary after them. Planned before the write and
 * applied to the sets in memory only once it landed.
 */
import type { EntryWrite } from './adapter.js';
import { CollectionSet, type SetChange, sumBytes } from './collection-set.js';
import {
  encodeFiles,
  encodeMeta,
  encodeSummary,
  fileIndexKey,
  NAMED_FILE_VALUE,
  namedFileKey,
  SUMMARY_KEY,
  versionIndexKey,
} from './index-entries.js';
import { ItemBuffer } from './negentropy/item-buffer.js';
import type { VersionMeta } from './record-state.js';
import type { Version } from './version.js';

export interface PlannedVersions {
  entries: EntryWrite[];
  plans: SetChange[];
  /** The summary's count of index entries and damaged keys after the write. */
  keys: number;
  damaged: string[];
}

/**
 * The writes for `versions` (none held, with their metas), over `sets` and the summary's
 * `keys` and `damaged` as they are now. `fresh` holds them by id.
 */
export function planVersions(
  sets: ReadonlyMap<string, CollectionSet>,
  summary: { keys: number; damaged: readonly string[] },
  versions: readonly Version[],
  metas: readonly VersionMeta[],
  fresh: ReadonlyMap<string, Version>,
): PlannedVersions {
  const entries: EntryWrite[] = [];
  const plans: SetChange[] = [];
  let keys = summary.keys;
  let damaged = [...summary.damaged];
  if (versions.length === 0) return { entries, plans, keys, damaged };
  const held = (collection: string, id: string) => sets.get(collection)?.hasId(id) ?? false;
  const deletes: EntryWrite[] = [];
  const byCollection = new Map<string, ItemBuffer>();
  versions.forEach((v, i) => {
    const key = versionIndexKey(v.collection, v.record, v.id);
    entries.push({ key, value: encodeMeta(metas[i]!) });
    // A version taking the place of a damaged entry under its key adds no key.
    if (damaged.includes(key)) damaged = damaged.filter((k) => k !== key);
    else keys++;
    if (v.files.length > 0) {
      entries.push({
        key: fileIndexKey(v.collection, v.record, v.id),
        value: encodeFiles(v.files),
      });
      for (const file of v.files)
        entries.push({
          key: namedFileKey(file, v.collection, v.record, v.id),
          value: NAMED_FILE_VALUE,
        });
    }
    // A version superseded is no head: its files are no longer named through it.
    for (const old of v.supersedes)
      if (fresh.has(old) || held(v.collection, old))
        deletes.push({ key: fileIndexKey(v.collection, v.record, old), value: undefined });
    let items = byCollection.get(v.collection);
    // Room for all of them: a commit's versions are nearly always of one collection.
    if (!items) byCollection.set(v.collection, (items = new ItemBuffer(versions.length)));
    items.pushHex(v.timestamp, v.id);
  });
  entries.push(...deletes);
  for (const [name, items] of byCollection) {
    const plan = (sets.get(name) ?? new CollectionSet(name)).plan(items.take());
    if (!plan) continue;
    plans.push(plan);
    for (const [key, value] of plan.puts) entries.push({ key, value });
    for (const key of plan.deletes) entries.push({ key, value: undefined });
  }
  const collections = new Map(
    [...sets].map(([name, set]) => [name, { count: set.count, sum: set.sum() }]),
  );
  for (const plan of plans)
    collections.set(plan.set.name, { count: plan.count, sum: sumBytes(plan.sum) });
  entries.push({ key: SUMMARY_KEY, value: encodeSummary({ collections, keys, damaged }) });
  return { entries, plans, keys, damaged };
}
