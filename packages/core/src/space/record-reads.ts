/**
 * Reading records as they stand (spec 05 §4): the winning version of each, opened under the
 * space's keys, and only where its author may write. What does not stand reads as absent.
 */
import type { BodyValue } from '../body.js';
import { assertCollectionName } from '../names.js';
import type { RecordState, VersionMeta } from '../record-state.js';
import type { Store } from '../store.js';
import { openWithKeys } from '../version.js';

/** A record as read: its winning version's body, and the heads that lost. */
export interface MincaRecord<T extends BodyValue = BodyValue> {
  id: string;
  collection: string;
  body: T;
  /** The winning version's id. */
  version: string;
  timestamp: number;
  author: string;
  /** Files the winning version names. */
  files: string[];
  /** Ids of the other heads: concurrent writes that did not win. */
  conflicts: string[];
}

export interface ListOptions {
  /** `id` (default), or by the winning version's timestamp. */
  order?: 'id' | 'newest' | 'oldest';
  limit?: number;
}

/** What reading needs of an open space. */
export interface RecordSource {
  readonly store: Store;
  readonly keys: readonly Uint8Array[];
  mayWrite(author: string, timestamp?: number): Promise<boolean>;
}

/** Record `id` of `collection` as it stands, or `undefined`. */
export async function getRecord(
  space: RecordSource,
  collection: string,
  id: string,
): Promise<MincaRecord | undefined> {
  assertCollectionName(collection);
  const record = await space.store.record(collection, id);
  return record ? readRecord(space, collection, id, record) : undefined;
}

/** The records of `collection` that stand, in `options.order`, at most `options.limit`. */
export async function listRecords(
  space: RecordSource,
  collection: string,
  options: ListOptions = {},
): Promise<MincaRecord[]> {
  assertCollectionName(collection);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (!(limit >= 0)) throw new RangeError('limit must be a number >= 0');
  const records = [...(await space.store.records(collection)).records];
  const order = options.order ?? 'id';
  if (order === 'id') records.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  else {
    const sign = order === 'newest' ? -1 : 1;
    const ts = (r: RecordState) => r.winner()?.timestamp ?? 0;
    records.sort(([a, ra], [b, rb]) => sign * (ts(ra) - ts(rb)) || (a < b ? -1 : 1));
  }
  const out: MincaRecord[] = [];
  for (const [id, record] of records) {
    if (out.length >= limit) break;
    const read = await readRecord(space, collection, id, record);
    if (read) out.push(read);
  }
  return out;
}

/** The record as it stands, or `undefined` when it doesn't (absent, deleted, invalid, unauthorised). */
async function readRecord(
  space: RecordSource,
  collection: string,
  id: string,
  record: RecordState,
): Promise<MincaRecord | undefined> {
  const winner = record.winner();
  if (!winner || winner.deleted || !(await space.mayWrite(winner.author, winner.timestamp)))
    return undefined;
  const body = await openBody(space, winner);
  if (body === undefined || body === null) return undefined;
  return {
    id,
    collection,
    body,
    version: winner.id,
    timestamp: winner.timestamp,
    author: winner.author,
    files: [...winner.files],
    conflicts: record.conflicts().map((m) => m.id),
  };
}

async function openBody(
  space: RecordSource,
  meta: VersionMeta,
): Promise<BodyValue | null | undefined> {
  const version = await space.store.getVersion(meta.id);
  if (!version) return undefined;
  try {
    return openWithKeys(version, space.keys);
  } catch {
    return undefined;
  }
}
