/**
 * Reading records as they stand (spec 05 §4): a record's winning head, when its author may
 * write at its time, it is no tombstone, and its body opens. What does not stand reads as
 * absent. A listing judges every winner from memory first, then reads the bodies of those that
 * may stand a page at a time and opens each from its bytes, without decoding the rest of its
 * envelope.
 */
import type { BodyValue } from '../body.js';
import { assertCollectionName } from '../names.js';
import type { RecordState, VersionMeta } from '../record-state.js';
import type { Store } from '../store.js';
import { openStored } from '../version.js';
import type { Membership } from './membership.js';

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
  membership(): Promise<Membership>;
}

/** Bodies read from the store in one call. */
const PAGE = 512;

/** Record `id` of `collection` as it stands, or `undefined`. */
export async function getRecord(
  space: RecordSource,
  collection: string,
  id: string,
): Promise<MincaRecord | undefined> {
  assertCollectionName(collection);
  const record = await space.store.record(collection, id);
  return record ? (await readRecords(space, collection, [[id, record]]))[0] : undefined;
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
  return readRecords(space, collection, records, limit);
}

/** The record with `winner`'s `body`. */
export function recordOf(
  collection: string,
  id: string,
  record: RecordState,
  winner: VersionMeta,
  body: BodyValue,
): MincaRecord {
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

/**
 * The records of `entries` (record id, state) that stand, in order, at most `limit` of them.
 * One record reads as many.
 */
async function readRecords(
  space: RecordSource,
  collection: string,
  entries: ReadonlyArray<readonly [string, RecordState]>,
  limit = Number.POSITIVE_INFINITY,
): Promise<MincaRecord[]> {
  const membership = await space.membership();
  const out: MincaRecord[] = [];
  let page: Array<[string, RecordState, VersionMeta]> = [];
  const flush = async () => {
    const bytes = await space.store.getVersionBytes(page.map(([, , winner]) => winner.id));
    page.forEach(([id, record, winner], i) => {
      const stored = bytes[i];
      if (!stored || out.length >= limit) return;
      let body: BodyValue | null;
      try {
        body = openStored(stored, space.keys);
      } catch {
        return; // A body that doesn't open or decode: the record does not stand.
      }
      if (body !== null) out.push(recordOf(collection, id, record, winner, body));
    });
    page = [];
  };
  for (const [id, record] of entries) {
    if (out.length >= limit) break;
    const winner = record.winner();
    if (!winner || winner.deleted || !membership.mayWrite(winner.author, winner.timestamp))
      continue;
    page.push([id, record, winner]);
    // Past what is left to find, a page is read before looking further.
    if (page.length >= Math.min(PAGE, limit - out.length)) await flush();
  }
  if (page.length > 0) await flush();
  return out;
}
