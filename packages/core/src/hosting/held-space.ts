/**
 * A space held without its key (spec 05 §7.3): the versions a holder keeps, reconciles and
 * serves. It checks what can be checked without the key — the envelope, its canonical
 * encoding, the signature and the space id (the peer does, before calling here) — and never
 * claims to know records: it has no bodies to read, and no roles to judge.
 */
import { decodeStrict, encodeCbor } from '../encoding.js';
import { MincaError } from '../errors.js';
import type { Store } from '../store.js';
import type { Version } from '../version.js';
import type { HoldingPolicy } from './holding-policy.js';

/** The entry of a held space's store that counts the bytes of its versions. */
const BYTES_KEY = 'held/bytes';

/** What the registry keeps of a space held without its key. */
export interface HeldEntry {
  id: string;
  /** The space's access DID (spec 05 §7.3): every peer proves the space with it. */
  access: string;
  /** The peer that first offered the space. */
  offeredBy: string;
  /** When this node started holding it, ms. */
  added: number;
}

export class HeldSpace {
  readonly #listeners = new Set<(change: { space: string; collections: string[] }) => void>();
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

  /** Without the key nothing can be opened, so nothing is judged unopenable. */
  opens(): boolean {
    return true;
  }

  /** Without `sys.member` readable, every verified version of the space may be kept. */
  async mayTakeIn(): Promise<boolean> {
    return true;
  }

  /**
   * Without `sys.member` readable, every author counts as one who may write: so a holder's
   * files (spec 05 §16.6) are those the live heads of every record name, read from `f`.
   */
  async mayWrite(): Promise<boolean> {
    return true;
  }

  /** No key, no roles: credentials are never taken in here (see `keyless`). */
  readonly keyless = true;
  isCredentialOf(): boolean {
    return false;
  }

  /**
   * The policy's reason to refuse these versions from `peer`, if it has one; `fromMirror` when
   * a mirror brings them (`peer` is then the DID that first offered the space).
   */
  async refusal(
    peer: string,
    versions: readonly Version[],
    fromMirror = false,
  ): Promise<string | undefined> {
    if (!this.policy.acceptData) return undefined;
    const fresh = versions.filter((v) => !this.store.hasVersion(v.collection, v.id));
    if (fresh.length === 0) return undefined;
    const reason = await this.policy.acceptData({
      space: this.id,
      peer,
      versions: fresh.length,
      bytes: fresh.reduce((n, v) => n + v.bytes.length, 0),
      held: { versions: this.store.versionCount(), bytes: this.bytes },
      ...(fromMirror ? { mirror: true } : {}),
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

  subscribe(listener: (change: { space: string; collections: string[] }) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
