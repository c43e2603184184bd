/**
 * Making a node's new versions of records (spec 05 §4): each supersedes its record's heads, is
 * dated by the node's clock, names the files in its body, and is sealed and signed, several at
 * once where several are written together.
 */
import type { BodyValue } from '../body.js';
import type { HybridClock } from '../clock.js';
import { MincaError } from '../errors.js';
import { fileIdsIn } from '../file-ref.js';
import { newRecordIds, RECORD_ID } from '../ids.js';
import type { SigningKey } from '../keys.js';
import type { Store } from '../store.js';
import {
  type SealedVersion,
  type SignOptions,
  sealVersions,
  type VersionDraft,
} from '../version-make.js';

/** `invalid_name` for what is not a record id. */
export function assertRecordId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || !RECORD_ID.test(id)) {
    throw new MincaError(
      'invalid_name',
      `invalid record id ${JSON.stringify(String(id).slice(0, 80))}`,
    );
  }
}

/**
 * Writes of `items`, each id given checked. A new record's write (`fresh`) has no id yet (`''`):
 * {@link freshInOrder} draws them, for one write at once, so joined puts draw theirs only when
 * their write comes.
 */
export function undrawnWritesOf(
  items: ReadonlyArray<{ body: BodyValue; id?: string }>,
): RecordWrite[] {
  return items.map(({ body, id }): RecordWrite => {
    if (id === undefined || id === null) return { id: '', body, fresh: true };
    assertRecordId(id);
    return { id, body };
  });
}

/**
 * Writes of `items` at clock reading `now`: a fresh id for each without one, in order (see
 * {@link freshInOrder}).
 */
export function writesOf(
  items: ReadonlyArray<{ body: BodyValue; id?: string }>,
  now: number,
): RecordWrite[] {
  return freshInOrder(undrawnWritesOf(items), now);
}

/**
 * `writes` with the fresh ones' ids drawn as one write's, in their order (see
 * {@link newRecordIds}). A put that failed among others and is written again alone draws its id
 * again, which is safe while nobody has seen it.
 */
export function freshInOrder(writes: readonly RecordWrite[], now: number): RecordWrite[] {
  const ids = newRecordIds(now, writes.filter((w) => w.fresh).length);
  let next = 0;
  return writes.map((w) => (w.fresh ? { ...w, id: ids[next++]! } : w));
}

/** What a space lends the writing. */
export interface WriteContext {
  space: string;
  store: Store;
  clock: HybridClock;
  signer: SigningKey;
}

/** A write of record `id`; `fresh` for a new record, whose id is drawn for it ({@link freshInOrder}). */
export interface RecordWrite {
  id: string;
  body: BodyValue | null;
  fresh?: boolean;
}

/**
 * New versions of records (`body` `null`: a tombstone), sealed under `key` and signed, not
 * stored. An id that comes again supersedes the version made for it just before, so those are
 * made in rounds, each round's signatures made together.
 */
export async function sealWrites(
  context: WriteContext,
  collection: string,
  writes: ReadonlyArray<RecordWrite>,
  options: SignOptions,
  key: Uint8Array,
): Promise<SealedVersion[]> {
  // Each record's heads, read once (a store reads a record's index entries as needed). A fresh
  // id (128 random bits drawn just now) has none: nobody could have written under it yet.
  const heads = new Map<string, string[]>();
  const known = writes.filter((w) => !w.fresh).map((w) => w.id);
  if (known.length > 0)
    await Promise.all(
      [...new Set(known)].map(async (id) => {
        const record = await context.store.record(collection, id);
        heads.set(
          id,
          (record?.heads ?? []).map((m) => m.id),
        );
      }),
    );
  const out: SealedVersion[] = new Array(writes.length);
  const made = new Map<string, string>();
  let pending = writes.map(({ id, body }, at) => ({ id, body, at }));
  while (pending.length > 0) {
    const round: typeof pending = [];
    const later: typeof pending = [];
    const seen = new Set<string>();
    for (const write of pending) {
      if (seen.has(write.id)) later.push(write);
      else {
        seen.add(write.id);
        round.push(write);
      }
    }
    const drafts = round.map(
      ({ id, body }): VersionDraft => ({
        space: context.space,
        collection,
        record: id,
        supersedes: made.has(id) ? [made.get(id)!] : (heads.get(id) ?? []),
        timestamp: context.clock.tick(),
        files: body === null ? [] : fileIdsIn(body),
        body,
      }),
    );
    const sealed = await sealVersions(drafts, key, context.signer, options);
    sealed.forEach((s, j) => {
      out[round[j]!.at] = s;
      made.set(s.version.record, s.version.id);
    });
    pending = later;
  }
  return out;
}
