/**
 * An open space: a member's view of a space (spec 05 §7), with its store and its key, and the
 * record rules over them — which versions stand, and writing new ones. The node holds one per
 * open space; sync, files and mirrors see it as a {@link SpaceView}.
 */
import type { BodyValue } from '../body.js';
import type { HybridClock } from '../clock.js';
import { MincaError } from '../errors.js';
import { fileIdsIn } from '../file-ref.js';
import { spaceAccessKey } from '../hosting/access-key.js';
import { RECORD_ID, randomId } from '../ids.js';
import type { SigningKey } from '../keys.js';
import { assertCollectionName, isSystemCollection } from '../names.js';
import type { RecordState, VersionMeta } from '../record-state.js';
import type { SpaceEntry } from '../registry.js';
import type { Store } from '../store.js';
import { createVersion, openBody, type Version } from '../version.js';
import { HOLDER_COLLECTION, type HolderKind, readHolders } from './holders.js';
import {
  ACCEPT_COLLECTION,
  acceptedRole,
  acceptProof,
  didRecordId,
  INVITE_COLLECTION,
  MEMBER_COLLECTION,
  type Role,
  readMembers,
} from './membership.js';
import type { SpaceChange, SpaceView } from './space-view.js';

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

export class OpenSpace implements SpaceView {
  readonly #listeners = new Set<(change: SpaceChange) => void>();
  /** Members granted by the owner, by DID; recomputed after `sys.member` changes. */
  #members: Map<string, Role> | undefined;
  /** Hosts and carriers the owner lets hold the space; recomputed after `sys.*` changes. */
  #holders: Map<string, HolderKind> | undefined;
  #accessKey: SigningKey | undefined;
  /** This node's writes here, in order (see #serialized). */
  #writes: Promise<void> = Promise.resolve();
  readonly #sharingListeners = new Set<() => void>();

  constructor(
    readonly entry: SpaceEntry,
    readonly store: Store,
    private readonly clock: HybridClock,
    private readonly signer: SigningKey,
  ) {
    for (const name of store.collectionNames()) {
      for (const meta of store.collection(name)!.versions.values()) clock.observe(meta.timestamp);
    }
  }

  get id(): string {
    return this.entry.id;
  }

  /** The 32-byte key bodies are sealed under. */
  get key(): Uint8Array {
    return this.entry.key;
  }

  /** The DID that created the space and owns it. */
  get owner(): string {
    return this.entry.owner;
  }

  /**
   * Calls `listener` as soon as a change to `sys.*` is stored, before other listeners: who the
   * space is shared with may differ. Returns the unsubscribe.
   */
  onSharingChange(listener: () => void): () => void {
    this.#sharingListeners.add(listener);
    return () => this.#sharingListeners.delete(listener);
  }

  /** `did`'s role in this space now, if any. */
  async roleOf(did: string): Promise<Role | undefined> {
    this.#members ??= await readMembers(this);
    return this.#members.get(did);
  }

  /** Whether the owner lets `did` hold this space without its key, and as what (spec 05 §7.3). */
  async holderKind(did: string): Promise<HolderKind | undefined> {
    this.#holders ??= await readHolders(this);
    return this.#holders.get(did);
  }

  /** Every DID the space is shared with: its members, and the holders the owner allows. */
  async sharers(): Promise<string[]> {
    this.#members ??= await readMembers(this);
    this.#holders ??= await readHolders(this);
    return [...new Set([...this.#members.keys(), ...this.#holders.keys()])].sort();
  }

  /** The key members prove the space with to holders (spec 05 §7.3), derived from the space key. */
  get accessKey(): SigningKey {
    this.#accessKey ??= spaceAccessKey(this.id, this.entry.key);
    return this.#accessKey;
  }

  /** Lets `did` hold the space as a host or carrier, or (`undefined`) no longer. Owner only. */
  async setHolder(did: string, kind: HolderKind | undefined): Promise<void> {
    if (!did.startsWith('did:key:')) throw new MincaError('invalid_input', 'a holder is a did:key');
    await this.#write(HOLDER_COLLECTION, didRecordId(did), kind === undefined ? null : { kind });
  }

  /** Whether `author` may write in this space now. */
  async mayWrite(author: string): Promise<boolean> {
    const role = await this.roleOf(author);
    return role === 'owner' || role === 'writer';
  }

  /**
   * Whether a version from outside may be kept: its author may write, or it is the author's
   * own valid acceptance of an invite (which is what gives the author a role).
   */
  async mayTakeIn(version: Version): Promise<boolean> {
    if (await this.mayWrite(version.author)) return true;
    return (
      version.collection === ACCEPT_COLLECTION && (await acceptedRole(this, version)) !== undefined
    );
  }

  /** A member refuses nothing its rules admit: only holders have limits. */
  async refusal(): Promise<string | undefined> {
    return undefined;
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
    await this.#write(MEMBER_COLLECTION, didRecordId(did), { role });
  }

  /** Offers `role` to whoever holds `inviteKey` (a `sys.invite` record). Returns its version. */
  async offer(inviteKey: SigningKey, role: Role): Promise<Version> {
    return this.#write(INVITE_COLLECTION, didRecordId(inviteKey.did), { role });
  }

  /** Takes the role invite `inviteKey` offers, writing this node's `sys.accept`. */
  async accept(inviteKey: SigningKey): Promise<Role> {
    const proof = await inviteKey.sign(acceptProof(this.id, this.signer.did));
    return this.#serialized(async () => {
      const body = { did: this.signer.did, proof };
      const version = await this.#seal(ACCEPT_COLLECTION, didRecordId(inviteKey.did), body);
      const role = await acceptedRole(this, version);
      if (!role)
        throw new MincaError(
          'not_authorized',
          'the invite is not offered in this space, or was withdrawn',
        );
      await this.takeIn([version]);
      return role;
    });
  }

  /**
   * The versions that give `did` its role here: the owner's grant, and `did`'s acceptances with
   * the offers they take. A peer that doesn't know `did` yet is shown these (sync handshake).
   */
  async credentials(did: string): Promise<Version[]> {
    const ids: string[] = [];
    const all = (collection: string, record: string) =>
      ids.push(
        ...(this.store
          .collection(collection)
          ?.records.get(record)
          ?.versions.map((m) => m.id) ?? []),
      );
    all(MEMBER_COLLECTION, didRecordId(did));
    for (const [invite, record] of this.store.collection(ACCEPT_COLLECTION)?.records ?? []) {
      const mine = record.versions.filter((m) => m.author === did).map((m) => m.id);
      if (mine.length === 0) continue;
      ids.push(...mine);
      all(INVITE_COLLECTION, invite);
    }
    return (await this.store.getVersions(ids)).filter((v): v is Version => v !== undefined);
  }

  /** Whether `version` is one of the kinds {@link credentials} gives for `did`. */
  isCredentialOf(version: Version, did: string): boolean {
    if (version.space !== this.id) return false;
    if (version.collection === ACCEPT_COLLECTION) return version.author === did;
    if (version.author !== this.entry.owner) return false;
    return (
      version.collection === INVITE_COLLECTION ||
      (version.collection === MEMBER_COLLECTION && version.record === didRecordId(did))
    );
  }

  /** Writes a tombstone over the record's heads. False when there was nothing to delete. */
  async delete(collection: string, id: string): Promise<boolean> {
    assertCollectionName(collection);
    const record = this.store.collection(collection)?.records.get(id);
    // Already one tombstone and nothing beside it: there is nothing left to delete.
    if (!record || (record.heads.length === 1 && record.winner()!.deleted)) return false;
    const stood = (await this.#read(collection, id, record)) !== undefined;
    await this.#write(collection, id, null);
    return stood;
  }

  async #write(collection: string, id: string, body: BodyValue | null): Promise<Version> {
    assertCollectionName(collection);
    // What a node may not write would not stand anywhere, so it is refused here, not stored.
    if (!(await this.mayWrite(this.signer.did))) {
      throw new MincaError(
        'not_authorized',
        `${this.signer.did} may not write in space ${this.id}`,
      );
    }
    if (typeof id !== 'string' || !RECORD_ID.test(id)) {
      throw new MincaError(
        'invalid_name',
        `invalid record id ${JSON.stringify(String(id).slice(0, 80))}`,
      );
    }
    return this.#serialized(async () => {
      const version = await this.#seal(collection, id, body);
      await this.takeIn([version]);
      return version;
    });
  }

  /**
   * Runs this node's writes here one after another, so a write reads the heads the one before it
   * left (signing is async: two puts of a record must not both supersede the same heads).
   */
  #serialized<T>(write: () => Promise<T>): Promise<T> {
    const done = this.#writes.then(write);
    this.#writes = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  /** A new version of record `id` superseding its heads, signed by this node. */
  #seal(collection: string, id: string, body: BodyValue | null): Promise<Version> {
    const heads = (this.store.collection(collection)?.records.get(id)?.heads ?? []).map(
      (m) => m.id,
    );
    return createVersion(
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
      this.signer,
    );
  }

  /** Stores versions (already verified) and tells listeners once. Returns those that were new. */
  async takeIn(versions: readonly Version[]): Promise<Version[]> {
    const fresh = await this.store.commit({ versions });
    if (fresh.length === 0) return fresh;
    const collections = [...new Set(fresh.map((v) => v.collection))].sort();
    if (collections.some(isSystemCollection)) {
      this.#members = undefined;
      this.#holders = undefined;
      for (const listener of this.#sharingListeners) listener();
    }
    const change = { space: this.id, collections };
    // Told after the write, each on its own: a listener that throws can't undo or block it.
    for (const listener of this.#listeners) void Promise.resolve(change).then(listener);
    return fresh;
  }

  /**
   * Reads the store again after another writer changed it, and tells listeners of the
   * collections that changed (all of them when only the fingerprint tells).
   */
  async reload(): Promise<void> {
    const before = this.store.fingerprint();
    const counts = new Map(
      this.store.collectionNames().map((n) => [n, this.store.collection(n)!.versions.size]),
    );
    await this.store.invalidate();
    if (this.store.fingerprint() === before) return;
    this.#members = undefined;
    const names = this.store.collectionNames();
    for (const name of names) {
      for (const meta of this.store.collection(name)!.versions.values()) {
        this.clock.observe(meta.timestamp);
      }
    }
    let collections = names.filter(
      (n) => counts.get(n) !== this.store.collection(n)!.versions.size,
    );
    if (collections.length === 0) collections = names;
    const change = { space: this.id, collections };
    for (const listener of this.#listeners) void Promise.resolve(change).then(listener);
  }

  subscribe(listener: (change: SpaceChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
