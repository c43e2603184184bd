/**
 * A fleet's shared state in its bucket (spec 06 §6.2): the hosts and where they listen, the
 * spaces held and for whom, the subscriptions, and each host's count of what it holds. Every
 * record is a signed statement (fleet-statements.ts) under `fleet/`. A host reads the whole
 * prefix every few seconds, fetching only what it has not read (held records never change;
 * host and usage records are read again each time), and writes its own host and usage records.
 */
import type { BlobStore, HeldSpaceRecord } from '@minca/core';
import {
  didPart,
  FLEET_PREFIX,
  type FleetSigner,
  readStatement,
  type StatementKind,
  signStatement,
} from './fleet-statements.js';
import { GroupedMap } from './grouped-map.js';
import { readSubscription, type Subscription, subscriptionFields, whole } from './subscriptions.js';

export const HOSTS_PREFIX = `${FLEET_PREFIX}hosts/`;
export const HELD_PREFIX = `${FLEET_PREFIX}held/`;
export const SUBSCRIPTIONS_PREFIX = `${FLEET_PREFIX}subscriptions/`;
export const USAGE_PREFIX = `${FLEET_PREFIX}usage/`;
/** How often a host reads the fleet's records and writes its own. */
export const FLEET_REFRESH_MS = 5_000;
/** A host record not renewed for this long is a host gone. */
export const HOST_STALE_MS = 60_000;
/**
 * Held records looked up in the bucket between two refreshes, for spaces offered that the last
 * listing did not show (held by another host since): bounded, since peers choose what they offer.
 */
const LOOKUPS_PER_REFRESH = 64;
/** Fleet records read at once in a refresh. */
const READS_AT_ONCE = 8;

/** Another host of the fleet, as its record says. */
export interface FleetHost {
  /** Its own key's DID (not the fleet's). */
  did: string;
  url: string;
  /** When it last renewed its record, ms. */
  at: number;
}

export class Fleet {
  /** Space → the fleet's record of it, found by account too. */
  readonly #held = new GroupedMap<HeldSpaceRecord>((r) => r.offeredBy);
  /** Subscription id → subscription, found by account too. */
  readonly #subscriptions = new GroupedMap<Subscription>((s) => s.account);
  readonly #hosts = new Map<string, FleetHost>();
  /** Per other host, its latest count of bytes per space it holds. */
  readonly #usage = new Map<string, Map<string, number>>();
  /** Keys that did not verify, not read again. */
  readonly #bad = new Set<string>();
  #lastUsage = '';
  /** Spaces looked up and not found since the last refresh, and how many lookups it made. */
  readonly #missed = new Set<string>();
  #lookups = 0;
  /** Held records this host could not write yet: tried again at each refresh. */
  readonly #unwritten = new Map<string, HeldSpaceRecord>();

  constructor(
    readonly bucket: BlobStore,
    readonly signer: FleetSigner,
    private readonly onBadRecord: (key: string, error: unknown) => void = () => undefined,
  ) {}

  get account(): string {
    return this.signer.fleet;
  }

  async #read(kind: StatementKind, key: string) {
    if (this.#bad.has(key)) return undefined;
    const bytes = await this.bucket.get(key);
    if (!bytes) return undefined;
    try {
      return await readStatement(this.signer.fleet, kind, key, bytes);
    } catch (error) {
      this.#bad.add(key);
      this.onBadRecord(key, error);
      return undefined;
    }
  }

  /** Reads the fleet's records: one listing, then what it has not read (and renewed ones). */
  async refresh(): Promise<void> {
    for (const record of [...this.#unwritten.values()]) await this.recordHeld(record);
    const keys = await this.bucket.list(FLEET_PREFIX);
    this.#missed.clear();
    this.#lookups = 0;
    const listed = new Set(keys);
    // Read a few at a time: a new host reads every held record once, before it serves.
    let next = 0;
    const worker = async () => {
      while (next < keys.length) {
        const key = keys[next++]!;
        await this.#take(key).catch((error) => this.onBadRecord(key, error));
      }
    };
    await Promise.all(Array.from({ length: READS_AT_ONCE }, worker));
    // A removed subscription is gone from the bucket: it counts no more.
    for (const id of [...this.#subscriptions.keys()])
      if (!listed.has(SUBSCRIPTIONS_PREFIX + id)) this.#subscriptions.delete(id);
    for (const did of [...this.#usage.keys()])
      if (!listed.has(USAGE_PREFIX + didPart(did))) this.#usage.delete(did);
  }

  /** Reads one listed fleet record, if it is one this host reads again or has not read. */
  async #take(key: string): Promise<void> {
    if (key.startsWith(HELD_PREFIX)) {
      const space = key.slice(HELD_PREFIX.length);
      if (!this.#held.has(space)) await this.#readHeld(space);
    } else if (key.startsWith(SUBSCRIPTIONS_PREFIX)) {
      const id = key.slice(SUBSCRIPTIONS_PREFIX.length);
      if (this.#subscriptions.has(id) || !/^[0-9a-f]{16}$/.test(id)) return;
      const s = await this.#read('subscription', key);
      const sub = s && readSubscription(id, s.body);
      if (sub) this.#subscriptions.set(id, sub);
    } else if (key.startsWith(HOSTS_PREFIX)) {
      const s = await this.#read('host', key);
      const b = s?.body;
      if (!s || typeof b?.u !== 'string' || !whole(b.t)) return;
      if (key !== HOSTS_PREFIX + didPart(s.signer)) return; // a host writes only its own
      this.#hosts.set(s.signer, { did: s.signer, url: b.u, at: b.t as number });
    } else if (key.startsWith(USAGE_PREFIX)) {
      if (key === USAGE_PREFIX + didPart(this.signer.key.did)) return;
      const s = await this.#read('usage', key);
      if (!s || key !== USAGE_PREFIX + didPart(s.signer) || !Array.isArray(s.body.u)) return;
      const counts = new Map<string, number>();
      for (const entry of s.body.u as unknown[]) {
        if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !whole(entry[1])) continue;
        counts.set(entry[0], entry[1] as number);
      }
      this.#usage.set(s.signer, counts);
    }
  }

  /** This host's record: where the others reach it. Renewed every refresh. */
  async announce(url: string, now = Date.now()): Promise<void> {
    const key = HOSTS_PREFIX + didPart(this.signer.key.did);
    await this.bucket.put(key, await signStatement(this.signer, 'host', key, { u: url, t: now }));
  }

  /** Removes this host's record (a host stopping for good). */
  async withdraw(): Promise<void> {
    await this.bucket.delete(HOSTS_PREFIX + didPart(this.signer.key.did));
  }

  /** The other hosts whose records were renewed lately. */
  hosts(now = Date.now()): FleetHost[] {
    return [...this.#hosts.values()].filter(
      (h) => h.did !== this.signer.key.did && now - h.at < HOST_STALE_MS,
    );
  }

  async #readHeld(space: string): Promise<HeldSpaceRecord | undefined> {
    const s = await this.#read('held', HELD_PREFIX + space);
    const b = s?.body;
    if (!b || typeof b.h !== 'string' || typeof b.o !== 'string' || !whole(b.a)) return undefined;
    const record = { space, access: b.h, offeredBy: b.o, added: b.a as number };
    this.#held.set(space, record);
    return record;
  }

  /**
   * The fleet's record of a space, if some host holds it: from the last listing, or else read
   * from the bucket (another host may have started holding it since), a bounded number of
   * times between refreshes.
   */
  async heldRecord(space: string): Promise<HeldSpaceRecord | undefined> {
    const known = this.#held.get(space);
    if (known || this.#missed.has(space) || this.#lookups >= LOOKUPS_PER_REFRESH) return known;
    this.#lookups++;
    const found = await this.#readHeld(space).catch(() => undefined);
    if (!found) this.#missed.add(space);
    return found;
  }

  /** Every space the fleet holds for `account`. */
  spacesHeldFor(account: string): string[] {
    return this.#held.keysOf(account);
  }

  /**
   * Records that this fleet holds a space: its access DID, and for whom. One that can't be
   * written now (the bucket failing) is written at the next refresh.
   */
  async recordHeld(record: HeldSpaceRecord): Promise<void> {
    if (this.#held.has(record.space)) return;
    const key = HELD_PREFIX + record.space;
    const body = { h: record.access, o: record.offeredBy, a: record.added };
    this.#unwritten.set(record.space, record);
    await this.bucket.put(key, await signStatement(this.signer, 'held', key, body));
    this.#unwritten.delete(record.space);
    this.#held.set(record.space, record);
  }

  subscriptions(): Subscription[] {
    return [...this.#subscriptions.values()];
  }

  /** The subscriptions of `account` the fleet's bucket held at the last refresh. */
  subscriptionsOf(account: string): Subscription[] {
    return this.#subscriptions.valuesOf(account);
  }

  async addSubscription(sub: Subscription): Promise<void> {
    const key = SUBSCRIPTIONS_PREFIX + sub.id;
    const bytes = await signStatement(this.signer, 'subscription', key, subscriptionFields(sub));
    await this.bucket.put(key, bytes);
    this.#subscriptions.set(sub.id, sub);
  }

  async removeSubscription(id: string): Promise<boolean> {
    if (!/^[0-9a-f]{16}$/.test(id)) return false;
    const key = SUBSCRIPTIONS_PREFIX + id;
    if ((await this.bucket.get(key)) === null) return false;
    await this.bucket.delete(key);
    this.#subscriptions.delete(id);
    return true;
  }

  /** The most bytes another host reported for `space`. */
  bytesElsewhere(space: string): number {
    let most = 0;
    for (const counts of this.#usage.values()) most = Math.max(most, counts.get(space) ?? 0);
    return most;
  }

  /** Writes this host's count of bytes per space held, when it changed. */
  async reportUsage(counts: ReadonlyMap<string, number>, now = Date.now()): Promise<void> {
    const u = [...counts].sort(([a], [b]) => (a < b ? -1 : 1));
    const text = JSON.stringify(u);
    if (text === this.#lastUsage) return;
    const key = USAGE_PREFIX + didPart(this.signer.key.did);
    await this.bucket.put(key, await signStatement(this.signer, 'usage', key, { t: now, u }));
    this.#lastUsage = text;
  }
}
