/**
 * A space held without its key (spec 05 §7.3): a holder's view of a space, the versions it
 * keeps, reconciles and serves. What can be checked without the key — the envelope, its
 * canonical encoding, the signature and the space id — the intake checks before calling here;
 * it never claims to know records: it has no bodies to read, and no roles to judge.
 */
import { decodeStrict, encodeCbor } from '../encoding.js';
import { MincaError } from '../errors.js';
import type { HoldingPolicy } from '../hosting/holding-policy.js';
import type { HeldEntry } from '../registry.js';
import type { Store } from '../store.js';
import type { Version } from '../version.js';

export type { HeldEntry } from '../registry.js';

import type { SpaceChange, SpaceView, VersionSource } from './space-view.js';

/** The entry of a held space's store that counts the bytes of its versions. */
const BYTES_KEY = 'held/bytes';

export class HeldSpace implements SpaceView {
  readonly #listeners = new Set<(change: SpaceChange) => void>();
  #writes: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly entry: HeldEntry,
    readonly store: Store,
    private readonly policy: HoldingPolicy,
    /** Bytes of the versions held, kept in the store beside them. */
    private bytes: number,
  ) {}

  static async open(entry: HeldEntry, store: Store, policy: HoldingPolicy): Promise<HeldSpace> {
    const raw = await store.get(BYTES_KEY);
    let bytes = 0;
    if (raw) {
      const n = decodeStrict(raw, { maxBytes: 16, maxDepth: 1 });
      if (!Number.isSafeInteger(n) || (n as number) < 0)
        throw new MincaError('corrupt', `the byte count of held space ${entry.id} is damaged`);
      bytes = n as number;
    }
    return new HeldSpace(entry, store, policy, bytes);
  }

  get id(): string {
    return this.entry.id;
  }

  /** Bytes of the versions held. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Held without the key: nothing here can be opened. */
  readonly key = undefined;
  readonly keys: readonly Uint8Array[] = [];

  /** Without `sys.member` readable, every verified version of the space may be kept. */
  async mayTakeIn(versions: readonly Version[]): Promise<boolean[]> {
    return versions.map(() => true);
  }

  /**
   * Without `sys.member` readable, every author counts as one who may write: so a holder's
   * files (spec 05 §16.6) are those the live heads of every record name, read from `f`.
   */
  async mayWrite(): Promise<boolean> {
    return true;
  }

  /** No key, no roles: credentials are never taken in here. */
  isCredentialOf(): boolean {
    return false;
  }

  /**
   * The policy's reason to refuse these versions, if it has one. Versions a mirror brings count
   * against the DID that first offered the space, whose account they are.
   */
  async refusal(from: VersionSource, versions: readonly Version[]): Promise<string | undefined> {
    if (!this.policy.acceptData) return undefined;
    const fresh = versions.filter((v) => !this.store.hasVersion(v.collection, v.id));
    if (fresh.length === 0) return undefined;
    const reason = await this.policy.acceptData({
      space: this.id,
      peer: 'peer' in from ? from.peer : this.entry.offeredBy,
      versions: fresh.length,
      bytes: fresh.reduce((n, v) => n + v.bytes.length, 0),
      held: { versions: this.store.versionCount(), bytes: this.bytes },
      ...('mirror' in from ? { mirror: true as const } : {}),
    });
    return reason === undefined ? undefined : String(reason).slice(0, 500);
  }

  /**
   * The policy's reason not to fetch a file's chunks: they count against the same account as
   * the versions, so a host keeps files within its subscriptions too (spec 06 §3).
   */
  async fileRefusal(file: string, bytes: number, filesHeld: number): Promise<string | undefined> {
    if (!this.policy.acceptData || bytes <= 0) return undefined;
    const reason = await this.policy.acceptData({
      space: this.id,
      peer: this.entry.offeredBy,
      file,
      versions: 0,
      bytes,
      held: { versions: this.store.versionCount(), bytes: this.bytes, files: filesHeld },
    });
    return reason === undefined ? undefined : String(reason).slice(0, 500);
  }

  /** Stores verified versions with the byte count, in one write. Returns those that were new. */
  takeIn(versions: readonly Version[]): Promise<Version[]> {
    const run = this.#writes.then(() => this.#takeIn(versions));
    this.#writes = run.catch(() => undefined);
    return run;
  }

  async #takeIn(versions: readonly Version[]): Promise<Version[]> {
    const fresh = new Map<string, Version>();
    for (const v of versions) if (!this.store.hasVersion(v.collection, v.id)) fresh.set(v.id, v);
    if (fresh.size === 0) return [];
    let bytes = this.bytes;
    for (const v of fresh.values()) bytes += v.bytes.length;
    const stored = await this.store.commit({
      versions: [...fresh.values()],
      entries: [{ key: BYTES_KEY, value: encodeCbor(bytes) }],
    });
    this.bytes = bytes;
    const collections = [...new Set(stored.map((v) => v.collection))].sort();
    const change = { space: this.id, collections };
    for (const listener of this.#listeners) void Promise.resolve(change).then(listener);
    return stored;
  }

  subscribe(listener: (change: SpaceChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
