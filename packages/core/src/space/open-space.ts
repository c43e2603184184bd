/**
 * An open space: a member's view of a space (spec 05 §7), with its store and its key, and the
 * record rules over them — which versions stand, and writing new ones. The node holds one per
 * open space; sync, files and mirrors see it as a {@link SpaceView}.
 */
import type { BodyValue } from '../body.js';
import type { HybridClock } from '../clock.js';
import { MincaError } from '../errors.js';
import { spaceAccessKey } from '../hosting/access-key.js';
import type { WriterIdentity } from '../identity/writer-chain.js';
import type { SigningKey } from '../keys.js';
import { assertCollectionName, isSystemCollection } from '../names.js';
import type { SpaceEntry } from '../registry.js';
import type { Store } from '../store.js';
import type { Version } from '../version.js';
import type { SealedVersion, SignOptions } from '../version-make.js';
import { type HolderKind, readHolders } from './holders.js';
import { type JoinedPut, joinedByCollection, PutJoiner } from './joined-puts.js';
import { isCredentialOf, publishWriter } from './member-records.js';
import { Membership, type MemberView, type Role } from './membership.js';
import {
  getRecord,
  type ListOptions,
  listRecords,
  type MincaRecord,
  writtenRecords,
} from './record-reads.js';
import {
  assertRecordId,
  type RecordWrite,
  sealWrites,
  undrawnWritesOf,
  writesOf,
} from './record-writer.js';
import { KEY_COLLECTION, type KeyRing, keptUnread, readKeyRing } from './space-keys.js';
import type { SpaceChange, SpaceView } from './space-view.js';

export class OpenSpace implements SpaceView, MemberView {
  readonly #listeners = new Set<(change: SpaceChange) => void>();
  /** Who may do what, read from `sys.*`; read again after it changes. */
  #membership: Promise<Membership> | undefined;
  /** Signatures inside `sys.*` bodies checked so far, by version id. */
  readonly checked = new Map<string, unknown>();
  /** Hosts and carriers the owner lets hold the space; recomputed after `sys.*` changes. */
  #holders: Map<string, HolderKind> | undefined;
  #accessKey: SigningKey | undefined;
  /** This node's `sys.writer` version known to carry its current chain. */
  #published: string | undefined;
  /** The key changes, read from `sys.key`; read again when one comes. */
  #ring: Promise<KeyRing> | undefined;
  /** The membership and chain this node's last write was allowed under (see #mayWriteHere). */
  #allowed: { membership: Promise<Membership>; chain: readonly Uint8Array[] } | undefined;
  /** This node's writes here, in order (see #serialized). */
  #writes: Promise<void> = Promise.resolve();
  /** Puts waiting for their turn in {@link #writes}, to be written together. */
  readonly #puts = new PutJoiner(
    (run) => void this.#chain(run).catch(() => undefined),
    (puts) => this.#writeJoined(puts),
  );
  readonly #sharingListeners = new Set<() => void>();
  readonly #keyListeners = new Set<(entry: SpaceEntry) => Promise<void>>();

  #entry: SpaceEntry;

  constructor(
    entry: SpaceEntry,
    readonly store: Store,
    private readonly clock: HybridClock,
    private readonly signer: SigningKey,
    /** Who this node writes for: its account, through its writer key's certificates. */
    readonly identity: WriterIdentity,
  ) {
    this.#entry = entry;
    clock.observe(store.latestTimestamp(clock.horizon()));
  }

  /** What the registry keeps of this space: id, keys, owner. */
  get entry(): SpaceEntry {
    return this.#entry;
  }

  get id(): string {
    return this.#entry.id;
  }

  /** The 32-byte key new bodies are sealed under. */
  get key(): Uint8Array {
    return this.#entry.key;
  }

  /** Every key of the space this node holds, oldest first. */
  get keys(): readonly Uint8Array[] {
    return this.#entry.keys;
  }

  /**
   * Adds keys learned or made (spec 05 §7.4); new bodies are sealed under `sealWith` (the last
   * key given, by default). Returns the entry to keep in the registry.
   */
  addKeys(keys: readonly Uint8Array[], sealWith = keys[keys.length - 1]): SpaceEntry {
    const all = [...this.#entry.keys];
    for (const key of keys) if (!all.some((k) => equal(k, key))) all.push(key);
    this.#entry = { ...this.#entry, keys: all, key: sealWith ?? this.#entry.key };
    return this.#entry;
  }

  /** The space's key changes as this node knows them: by epoch, how far it learned (§7.4). */
  async keyRing(): Promise<KeyRing> {
    this.#ring ??= readKeyRing(this, await this.membership(), this.signer);
    return this.#ring;
  }

  /** The DID this node signs with here: its writer key's. */
  get writer(): string {
    return this.signer.did;
  }

  /** The DID that created the space and owns it. */
  get owner(): string {
    return this.#entry.owner;
  }

  /**
   * Calls `listener` as soon as a change to `sys.*` is stored, before other listeners: who the
   * space is shared with may differ. Returns the unsubscribe.
   */
  onSharingChange(listener: () => void): () => void {
    this.#sharingListeners.add(listener);
    return () => this.#sharingListeners.delete(listener);
  }

  /** Who may do what here, as the space's own records say now. */
  membership(): Promise<Membership> {
    this.#membership ??= Membership.read(this);
    const reading = this.#membership;
    reading.catch(() => {
      if (this.#membership === reading) this.#membership = undefined;
    });
    return reading;
  }

  /** Account `did`'s role in this space now, if any. */
  async roleOf(did: string): Promise<Role | undefined> {
    return (await this.membership()).roleAt(did);
  }

  async #readHolders(): Promise<Map<string, HolderKind>> {
    if (this.#holders) return this.#holders;
    const membership = await this.membership();
    this.#holders = await readHolders(
      this,
      (meta) => membership.accountAt(meta.author, meta.timestamp) === this.owner,
    );
    return this.#holders;
  }

  /** The holders the owner lets keep this space without its key, by DID (spec 05 §7.3). */
  async holders(): Promise<Map<string, HolderKind>> {
    return new Map(await this.#readHolders());
  }

  /** Every DID the space is shared with: its members' accounts, and the holders the owner allows. */
  async sharers(): Promise<string[]> {
    const members = (await this.membership()).members();
    const holders = await this.#readHolders();
    return [...new Set([...members.keys(), ...holders.keys()])].sort();
  }

  /**
   * The key members prove the space with to holders (spec 05 §7.3), derived from the space's
   * first key, so holders keep working when the key changes.
   */
  get accessKey(): SigningKey {
    this.#accessKey ??= spaceAccessKey(this.id, this.#entry.keys[0]!, this.signer);
    return this.#accessKey;
  }

  /** Whether a version by writer `author` at `timestamp` (default: now) stands by its role. */
  async mayWrite(author: string, timestamp = Number.POSITIVE_INFINITY): Promise<boolean> {
    return (await this.membership()).mayWrite(author, timestamp);
  }

  /**
   * Whether a version from outside may be kept: its writer may write at its time, or it is a
   * valid acceptance of an invite, or a writer's own record (what gives or shows a role).
   */
  async mayTakeIn(versions: readonly Version[]): Promise<boolean[]> {
    return (await this.membership()).admitsEach(versions);
  }

  /** A member refuses nothing its rules admit: only holders have limits. */
  async refusal(): Promise<string | undefined> {
    return undefined;
  }

  async get(collection: string, id: string): Promise<MincaRecord | undefined> {
    return getRecord(this, collection, id);
  }

  async list(collection: string, options: ListOptions = {}): Promise<MincaRecord[]> {
    return listRecords(this, collection, options);
  }

  /**
   * Writes a new version of record `id` (a new record without one), superseding its heads. Puts
   * made while an earlier write is under way are written together (joined-puts.ts), a new
   * record's id drawn then.
   */
  async put(collection: string, body: BodyValue, id?: string): Promise<MincaRecord> {
    assertCollectionName(collection);
    const [write] = undrawnWritesOf([{ body, ...(id ? { id } : {}) }]);
    return new Promise((resolve, reject) =>
      this.#puts.add({ collection, write: write!, resolve, reject }),
    );
  }

  /**
   * Writes several records in one go: each sealed, the signatures made together (or under
   * batch signatures, `perSignature`, spec 05 §3.6), all stored in one commit and told once.
   * An id given twice gets two versions, the second superseding the first.
   */
  async putMany(
    collection: string,
    items: ReadonlyArray<{ body: BodyValue; id?: string }>,
    options: SignOptions = {},
  ): Promise<MincaRecord[]> {
    assertCollectionName(collection);
    const writes = writesOf(items, this.clock.read());
    const sealed = await this.serialized(async () => {
      await this.#mayWriteHere();
      const made = await this.#sealMany(collection, writes, options);
      await this.takeIn(made.map((s) => s.version));
      return made;
    });
    return writtenRecords(this, collection, writes, sealed);
  }

  /**
   * Writes puts that waited for their turn together: one commit for all, each collection's
   * sealed together. When that fails, each is written alone, so one put's failure (a body too
   * large, say) is its own.
   */
  async #writeJoined(puts: ReadonlyArray<JoinedPut>): Promise<void> {
    const groups = joinedByCollection(puts, this.clock.read());
    const made: SealedVersion[][] = [];
    try {
      await this.#mayWriteHere();
      for (const { collection, writes } of groups)
        made.push(await this.#sealMany(collection, writes, {}));
      await this.takeIn(made.flat().map((s) => s.version));
    } catch (error) {
      if (puts.length === 1) puts[0]!.reject(error);
      else for (const put of puts) await this.#writeJoined([put]);
      return;
    }
    // Answered after this turn: what stands is read while the next writes go on.
    groups.forEach(({ collection, puts: group, writes }, i) => {
      writtenRecords(this, collection, writes, made[i]!).then(
        (records) => {
          for (const [j, p] of group.entries()) p.resolve(records[j]!);
        },
        (error) => {
          for (const p of group) p.reject(error);
        },
      );
    });
  }

  /** Whether `version` is of a kind of credential `did` may show here (spec 05 §8). */
  isCredentialOf(version: Version, did: string): boolean {
    return isCredentialOf(this, version, did);
  }

  /** Writes a tombstone over the record's heads. False when there was nothing to delete. */
  async delete(collection: string, id: string): Promise<boolean> {
    assertCollectionName(collection);
    const record = await this.store.record(collection, id);
    // Already one tombstone and nothing beside it: there is nothing left to delete.
    if (!record || (record.heads.length === 1 && record.winner()!.deleted)) return false;
    const stood = (await getRecord(this, collection, id)) !== undefined;
    await this.write(collection, id, null);
    return stood;
  }

  /**
   * Writes a new version of record `id` in `collection`: `null` writes a tombstone. It is
   * sealed under the space's newest key, or `sealKey` (a key record is sealed under the key
   * before its own, spec 05 §7.4).
   */
  async write(
    collection: string,
    id: string,
    body: BodyValue | null,
    sealKey?: Uint8Array,
  ): Promise<Version> {
    assertCollectionName(collection);
    assertRecordId(id);
    return this.serialized(async () => {
      await this.#mayWriteHere();
      const version = await this.seal(collection, id, body, sealKey);
      await this.takeIn([version]);
      return version;
    });
  }

  /** Publishes this node's writer record if due, and refuses a write that would not stand. */
  async #mayWriteHere(): Promise<void> {
    const { account, chain } = this.identity;
    // Allowed under this very membership and chain before: the answer is the same, since every
    // change to sys.* (the writer record too) reads the membership again.
    const allowed = this.#allowed;
    const same = allowed?.membership === this.#membership && allowed?.chain === chain;
    if (this.#membership !== undefined && same) return;
    // The writer's record first, so what it writes counts for its account everywhere.
    if ((await this.roleOf(account)) !== undefined) await this.#publishWriter();
    // What a node may not write would not stand anywhere, so it is refused here, not stored.
    const membership = this.membership();
    if (!(await membership).mayWrite(this.signer.did, Number.POSITIVE_INFINITY)) {
      throw new MincaError('not_authorized', `${account} may not write in space ${this.id}`);
    }
    this.#allowed = { membership, chain };
  }

  /**
   * Writes this node's `sys.writer` record, once per chain: it ties the writer key to the
   * account, so what it writes counts for the account everywhere (spec 05 §6).
   */
  async #publishWriter(): Promise<void> {
    this.#published = await publishWriter(this, this.#published);
  }

  /** Publishes this node's writer record if it hasn't: after joining, before it writes. */
  publishWriter(): Promise<void> {
    return this.serialized(() => this.#publishWriter());
  }

  /**
   * Runs this node's writes here one after another, so a write reads the heads the one before it
   * left (signing is async: two puts of a record must not both supersede the same heads).
   */
  serialized<T>(write: () => Promise<T>): Promise<T> {
    this.#puts.close();
    return this.#chain(write);
  }

  #chain<T>(write: () => Promise<T>): Promise<T> {
    const done = this.#writes.then(write);
    this.#writes = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  /** A new version of record `id` superseding its heads, signed by this node; not stored. */
  async seal(
    collection: string,
    id: string,
    body: BodyValue | null,
    key: Uint8Array = this.#entry.key,
  ): Promise<Version> {
    return (await this.#sealMany(collection, [{ id, body }], {}, key))[0]!.version;
  }

  #sealMany(
    collection: string,
    writes: ReadonlyArray<RecordWrite>,
    options: SignOptions,
    key: Uint8Array = this.#entry.key,
  ): Promise<SealedVersion[]> {
    const context = { space: this.id, store: this.store, clock: this.clock, signer: this.signer };
    return sealWrites(context, collection, writes, options, key);
  }

  /** Stores versions (already verified) and tells listeners once. Returns those that were new. */
  async takeIn(versions: readonly Version[]): Promise<Version[]> {
    const fresh = await this.store.commit({ versions });
    if (fresh.length === 0) return fresh;
    // What this node writes next sorts after what it has seen (spec 05 §3.5).
    for (const v of fresh) this.clock.observe(v.timestamp);
    const collections = [...new Set(fresh.map((v) => v.collection))].sort();
    if (collections.some(isSystemCollection)) {
      this.#membership = undefined;
      this.#holders = undefined;
      this.#ring = undefined;
      // A new key wrapped for this node is learned before anything sealed under it comes.
      if (collections.includes(KEY_COLLECTION)) await this.refreshKeys();
      for (const listener of this.#sharingListeners) listener();
    }
    const change = { space: this.id, collections };
    // Told after the write, each on its own: a listener that throws can't undo or block it.
    for (const listener of this.#listeners) void Promise.resolve(change).then(listener);
    return fresh;
  }

  /**
   * Reads the owner's key records again (at open, and whenever one comes): adds the keys they
   * wrap for this node, seals from now on under the newest epoch's winner, and tells who keeps
   * the entry.
   */
  async refreshKeys(): Promise<void> {
    this.#ring = undefined;
    const ring = await this.keyRing();
    const all = [...ring.epochs.values()].flat();
    const newest = ring.epochs.get(ring.learned)!;
    const sealWith = newest[newest.length - 1]!;
    if (all.every((k) => this.keys.some((m) => equal(m, k))) && equal(sealWith, this.key)) return;
    const entry = this.addKeys(all, sealWith);
    for (const listener of this.#keyListeners) await listener(entry);
  }

  /** Calls `listener` with the registry entry each time this node learns or makes a key. */
  onKeys(listener: (entry: SpaceEntry) => Promise<void>): () => void {
    this.#keyListeners.add(listener);
    return () => this.#keyListeners.delete(listener);
  }

  /**
   * Whether a body that opens under none of this node's keys may still be kept: the owner wrote
   * a key record of an epoch this node has no key for (it was removed), here or in `batch`. It
   * is kept, unreadable here, so stores stay level; nothing it says stands here.
   */
  async keptUnread(batch: readonly Version[]): Promise<boolean> {
    return keptUnread(this, await this.keyRing(), await this.membership(), batch);
  }

  /**
   * Reads the store again after another writer changed it, and tells listeners of the
   * collections that changed (all of them when only the fingerprint tells).
   */
  async reload(): Promise<void> {
    const before = this.store.fingerprint();
    const counts = new Map(this.store.counts());
    await this.store.invalidate();
    if (this.store.fingerprint() === before) return;
    this.#membership = undefined;
    this.#holders = undefined;
    const names = this.store.collectionNames();
    this.clock.observe(this.store.latestTimestamp(this.clock.horizon()));
    let collections = names.filter((n) => counts.get(n) !== this.store.count(n));
    if (collections.length === 0) collections = names;
    const change = { space: this.id, collections };
    for (const listener of this.#listeners) void Promise.resolve(change).then(listener);
  }

  subscribe(listener: (change: SpaceChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

const equal = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((x, i) => x === b[i]);
