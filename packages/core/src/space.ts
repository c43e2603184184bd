/**
 * An open space: its store, its key, and the record rules over them — which versions stand,
 * and writing new ones. The node holds one per open space.
 */
import type { BodyValue } from './body.js';
import type { HybridClock } from './clock.js';
import { MincaError } from './errors.js';
import { fileIdsIn } from './file-ref.js';
import { RECORD_ID, randomId } from './ids.js';
import type { SigningKey } from './keys.js';
import { assertCollectionName } from './names.js';
import type { RecordState, VersionMeta } from './record-state.js';
import type { SpaceEntry } from './registry.js';
import type { Store } from './store.js';
import { createVersion, openBody, type Version } from './version.js';

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

/** What changed in a space, told once per change taken in. */
export interface SpaceChange {
  space: string;
  collections: string[];
}

/** Collection of membership grants: record id is the member's DID without `did:key:`. */
export const MEMBER_COLLECTION = 'sys.member';
export type Role = 'owner' | 'writer' | 'reader';

export class OpenSpace {
  readonly #listeners = new Set<(change: SpaceChange) => void>();
  /** Members granted by the owner, by DID; recomputed after `sys.member` changes. */
  #members: Map<string, Role> | undefined;

  constructor(
    readonly entry: SpaceEntry,
    readonly store: Store,
    private readonly clock: HybridClock,
    private readonly key: SigningKey,
  ) {
    for (const name of store.collectionNames()) {
      for (const meta of store.collection(name)!.versions.values()) clock.observe(meta.timestamp);
    }
  }

  get id(): string {
    return this.entry.id;
  }

  /** `did`'s role in this space now, if any. */
  async roleOf(did: string): Promise<Role | undefined> {
    if (did === this.entry.owner) return 'owner';
    this.#members ??= await this.#readMembers();
    return this.#members.get(did);
  }

  /** Whether `author` may write in this space now. */
  async mayWrite(author: string): Promise<boolean> {
    const role = await this.roleOf(author);
    return role === 'owner' || role === 'writer';
  }

  async #readMembers(): Promise<Map<string, Role>> {
    const members = new Map<string, Role>();
    const state = this.store.collection(MEMBER_COLLECTION);
    for (const [id, record] of state?.records ?? []) {
      const winner = record.winner();
      // Only the owner's grants count, so nobody can grant themselves a role.
      if (!winner || winner.deleted || winner.author !== this.entry.owner) continue;
      const body = await this.#body(winner);
      const role =
        body && typeof body === 'object' && !Array.isArray(body)
          ? (body as { role?: unknown }).role
          : undefined;
      if (role === 'owner' || role === 'writer' || role === 'reader')
        members.set(`did:key:${id}`, role);
    }
    return members;
  }

  async #body(meta: VersionMeta): Promise<BodyValue | null | undefined> {
    const version = await this.store.getVersion(meta.id);
    if (!version) return undefined;
    try {
      return openBody(version, this.entry.key);
    } catch {
      return undefined;
    }
  }

  /** The record as it stands, or `undefined` when it doesn't (absent, deleted, invalid, unauthorised). */
  async #read(
    collection: string,
    id: string,
    record: RecordState,
  ): Promise<MincaRecord | undefined> {
    const winner = record.winner();
    if (!winner || winner.deleted || !(await this.mayWrite(winner.author))) return undefined;
    const body = await this.#body(winner);
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

  async get(collection: string, id: string): Promise<MincaRecord | undefined> {
    assertCollectionName(collection);
    const record = this.store.collection(collection)?.records.get(id);
    return record ? this.#read(collection, id, record) : undefined;
  }

  async list(collection: string, options: ListOptions = {}): Promise<MincaRecord[]> {
    assertCollectionName(collection);
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    if (!(limit >= 0)) throw new RangeError('limit must be a number >= 0');
    const records = [...(this.store.collection(collection)?.records ?? [])];
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
      const read = await this.#read(collection, id, record);
      if (read) out.push(read);
    }
    return out;
  }

  /** Writes a new version of record `id` (a new record without one), superseding its heads. */
  async put(collection: string, body: BodyValue, id?: string): Promise<MincaRecord> {
    const version = await this.#write(collection, id ?? randomId(), body);
    return (await this.get(collection, version.record))!;
  }

  /** Grants `did` a role in the space (a `sys.member` record). Only the owner's grants count. */
  async setRole(did: string, role: Role): Promise<void> {
    if (!did.startsWith('did:key:')) throw new MincaError('invalid_input', 'a member is a did:key');
    await this.#write(MEMBER_COLLECTION, did.slice('did:key:'.length), { role });
  }

  /** Writes a tombstone over the record's heads. False when there was nothing to delete. */
  async delete(collection: string, id: string): Promise<boolean> {
    assertCollectionName(collection);
    const record = this.store.collection(collection)?.records.get(id);
    // Already one tombstone and nothing beside it: there is nothing left to delete.
    if (!record || (record.heads.size === 1 && record.winner()!.deleted)) return false;
    const stood = (await this.#read(collection, id, record)) !== undefined;
    await this.#write(collection, id, null);
    return stood;
  }

  async #write(collection: string, id: string, body: BodyValue | null): Promise<Version> {
    assertCollectionName(collection);
    // What a node may not write would not stand anywhere, so it is refused here, not stored.
    if (!(await this.mayWrite(this.key.did))) {
      throw new MincaError('not_authorized', `${this.key.did} may not write in space ${this.id}`);
    }
    if (typeof id !== 'string' || !RECORD_ID.test(id)) {
      throw new MincaError(
        'invalid_name',
        `invalid record id ${JSON.stringify(String(id).slice(0, 80))}`,
      );
    }
    const heads = [...(this.store.collection(collection)?.records.get(id)?.heads ?? [])];
    const version = createVersion(
      {
        space: this.id,
        collection,
        record: id,
        supersedes: heads,
        timestamp: this.clock.tick(),
        files: body === null ? [] : fileIdsIn(body),
        body,
      },
      this.entry.key,
      this.key,
    );
    await this.takeIn([version]);
    return version;
  }

  /** Stores versions (already verified) and tells listeners once. Returns those that were new. */
  async takeIn(versions: readonly Version[]): Promise<Version[]> {
    const fresh = await this.store.commit({ versions });
    if (fresh.length === 0) return fresh;
    const collections = [...new Set(fresh.map((v) => v.collection))].sort();
    if (collections.includes(MEMBER_COLLECTION)) this.#members = undefined;
    const change = { space: this.id, collections };
    // Told after the write, each on its own: a listener that throws can't undo or block it.
    for (const listener of this.#listeners) void Promise.resolve(change).then(listener);
    return fresh;
  }

  subscribe(listener: (change: SpaceChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
