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
import { openStoredMany } from '../version.js';
import type { SealedVersion } from '../version-make.js';
import type { Membership } from './membership.js';
import type { RecordWrite } from './record-writer.js';

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
/** Pages read and opening at once: the next is read while the platform opens the last. */
const DEPTH = 2;

/** Record `id` of `collection` as it stands, or `undefined`. */
export async function getRecord(
  space: RecordSource,
  collection: string,
  id: string,
): Promise<MincaRecord | undefined> {
  assertCollectionName(collection);
  const record = await space.store.record(collection, id);
  return record
    ? (await readRecords(space, collection, [id], new Map([[id, record]])))[0]
    : undefined;
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
  const records = await space.store.recordStates(collection);
  // The ids alone are sorted: the default order is by UTF-16 code units, as `<` compares.
  const ids = [...records.keys()];
  const order = options.order ?? 'id';
  if (order === 'id') ids.sort();
  else {
    const sign = order === 'newest' ? -1 : 1;
    const ts = (id: string) => records.get(id)!.winner()?.timestamp ?? 0;
    ids.sort((a, b) => sign * (ts(a) - ts(b)) || (a < b ? -1 : 1));
  }
  return readRecords(space, collection, ids, records, limit);
}

/**
 * The record with `winner`'s `body`, and the heads that lost to it: a version just written under
 * an id nobody else knows yet has none.
 */
export function recordOf(
  collection: string,
  id: string,
  winner: Pick<VersionMeta, 'id' | 'timestamp' | 'author' | 'files'>,
  body: BodyValue,
  conflicts: readonly VersionMeta[] = [],
): MincaRecord {
  return {
    id,
    collection,
    body,
    version: winner.id,
    timestamp: winner.timestamp,
    author: winner.author,
    files: [...winner.files],
    conflicts: conflicts.map((m) => m.id),
  };
}

/**
 * Records just written (`writes`, made as `sealed`), as they stand now: with the bodies as
 * written (copied as a reader decodes them), unless another version won meanwhile (one taken in
 * from a peer), when the record is read. A record under a fresh id is the one version just
 * written: nobody else knows its id yet. A version a later one of the same write superseded is
 * answered as it was written.
 */
export async function writtenRecords(
  space: RecordSource,
  collection: string,
  writes: readonly RecordWrite[],
  sealed: readonly SealedVersion[],
): Promise<MincaRecord[]> {
  const out: MincaRecord[] = [];
  const last = new Map(writes.map((w, i) => [w.id, i]));
  for (const [i, { version, body }] of sealed.entries()) {
    if ((writes[i]!.fresh || last.get(version.record) !== i) && body !== null) {
      out.push(recordOf(collection, version.record, version, body));
      continue;
    }
    const record = await space.store.record(collection, version.record);
    const winner = record?.winner();
    if (record && winner?.id === version.id && body !== null)
      out.push(recordOf(collection, version.record, winner, body, record.conflicts()));
    else out.push((await getRecord(space, collection, version.record))!);
  }
  return out;
}

/**
 * The records `ids` of `records` that stand, in order, at most `limit` of them. One record
 * reads as many. Pages are read and opened {@link DEPTH} at a time, so the platform's cores open
 * one while this thread reads and decodes another.
 */
async function readRecords(
  space: RecordSource,
  collection: string,
  ids: readonly string[],
  records: ReadonlyMap<string, RecordState>,
  limit = Number.POSITIVE_INFINITY,
): Promise<MincaRecord[]> {
  const membership = await space.membership();
  // A listing of more than the body cache holds would only push its own bodies (and every
  // other) out before the next listing reached them: it reads past the cache.
  const keep = space.store.fitsBodyCache(Math.min(ids.length, limit));
  const out: MincaRecord[] = [];
  const queue: Array<{ size: number; read: Promise<MincaRecord[]> }> = [];
  /** Records read or on their way. */
  let queued = 0;
  let pageIds: string[] = [];
  let winners: VersionMeta[] = [];
  const send = () => {
    const read = readPage(space, collection, pageIds, winners, records, keep);
    // Awaited in turn below; marked handled now, so one failing page leaves no other unheard.
    read.catch(() => {});
    queue.push({ size: winners.length, read });
    queued += winners.length;
    pageIds = [];
    winners = [];
  };
  const take = async () => {
    const page = queue.shift()!;
    queued -= page.size;
    for (const record of await page.read) if (out.length < limit) out.push(record);
  };
  for (const id of ids) {
    // What is read or on its way may be all that is needed: it is seen first.
    while (queue.length > 0 && (queue.length >= DEPTH || out.length + queued >= limit))
      await take();
    if (out.length >= limit) break;
    const winner = records.get(id)!.winner();
    if (!winner || winner.deleted || !membership.mayWrite(winner.author, winner.timestamp))
      continue;
    pageIds.push(id);
    winners.push(winner);
    if (winners.length >= Math.min(PAGE, limit - out.length - queued)) send();
  }
  if (winners.length > 0) send();
  while (queue.length > 0) await take();
  return out;
}

/** The records of one page, `ids` beside their `winners`, that stand. */
async function readPage(
  space: RecordSource,
  collection: string,
  ids: readonly string[],
  winners: readonly VersionMeta[],
  records: ReadonlyMap<string, RecordState>,
  keep: boolean,
): Promise<MincaRecord[]> {
  const bytes = await space.store.getVersionBytes(
    winners.map((winner) => winner.id),
    { keep },
  );
  const present = bytes.flatMap((b, i) => (b ? [i] : []));
  const bodies = await openStoredMany(
    present.map((i) => bytes[i]!),
    space.keys,
  );
  const out: MincaRecord[] = [];
  present.forEach((i, j) => {
    const body = bodies[j];
    // A body that doesn't open or decode (undefined), or a tombstone: the record does not stand.
    if (body === undefined || body === null) return;
    const id = ids[i]!;
    out.push(recordOf(collection, id, winners[i]!, body, records.get(id)!.conflicts()));
  });
  return out;
}
