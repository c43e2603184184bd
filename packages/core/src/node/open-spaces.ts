/**
 * The spaces a node has open, and opening them on demand: a member's ({@link OpenSpace}, from
 * its registry entry and key) or a holder's ({@link HeldSpace}, without the key). Each is opened
 * once; what else a space needs while open (files, mirrors, peers hearing of changes) comes in
 * through {@link SpaceHooks}. A space nothing used for a while closes, and so does the least
 * recently used one past the most open at once (spec 06 §4.1); calls and peers open it again.
 */
import type { StoreFactory } from '../adapter.js';
import { fromHex } from '../bytes.js';
import type { HybridClock } from '../clock.js';
import { MincaError } from '../errors.js';
import type { HoldingPolicy } from '../hosting/holding-policy.js';
import type { WriterIdentity } from '../identity/writer-chain.js';
import { SPACE_ID } from '../ids.js';
import type { SigningKey } from '../keys.js';
import type { Registry } from '../registry.js';
import { type HeldEntry, HeldSpace } from '../space/held-space.js';
import { OpenSpace } from '../space/open-space.js';
import type { SpaceView } from '../space/space-view.js';
import { SessionSlots } from '../sync/session-slots.js';
import type { ClosedHello } from '../sync/sync-host.js';
import { clearRepeating, setHousekeeping, sleep } from '../timers.js';
import { openStore, spaceStorePath } from './open-store.js';
import { type OpenSpacesOptions, openSpacesLimits, SpaceUse, sweepPeriod } from './space-use.js';

/** What the node does as a space opens and closes. */
export interface SpaceHooks {
  /** A space just opened, before anyone else gets it. */
  opened(space: OpenSpace | HeldSpace): Promise<void>;
  /**
   * A space is closing: after this its store closes. What must not see it any more (peers'
   * syncs) lets go of it before this first awaits.
   */
  closing(id: string): Promise<void>;
  /**
   * What outside the calls uses the space now: `pinned`, a file read or a peer's message being
   * handled (it never closes meanwhile); `syncing`, a sync mid-session or asking for versions
   * (it closes then only past the most open at once, for a peer's open: the session is found
   * again later, nothing stored is lost).
   */
  busy(id: string): 'pinned' | 'syncing' | undefined;
}

export interface OpenSpacesConfig {
  stores: StoreFactory;
  registry: Registry;
  clock: HybridClock;
  key: SigningKey;
  /** Who the node writes for, through `key`'s certificates. */
  identity: WriterIdentity;
  holding: HoldingPolicy | undefined;
  hooks: SpaceHooks;
  now: () => number;
  limits?: OpenSpacesOptions;
}

/** How many spaces are open now (`spaces.stats`). */
export interface OpenSpacesStats {
  /** Spaces open, with their key and held without it. */
  open: number;
  members: number;
  held: number;
  /** The limits in force: a space idle this long closes, and at most this many stay open. */
  idleMs: number;
  max: number;
  /**
   * Reconciliation sessions over all connections: running now, waiting for a slot, and the
   * most that run at once (half of `max`; spec 06 §4.1 "Sessions at once").
   */
  sessions: { running: number; waiting: number; max: number };
}

type AnySpace = OpenSpace | HeldSpace;
interface Entry<S extends AnySpace> {
  opening: Promise<S>;
  /** Once open. */
  space?: S;
}

export class OpenSpaces {
  readonly #members = new Map<string, Entry<OpenSpace>>();
  /** Spaces held without their key, open. */
  readonly #held = new Map<string, Entry<HeldSpace>>();
  /** Spaces closing now: opening one again waits for its close. */
  readonly #closing = new Map<string, Promise<void>>();
  readonly #use: SpaceUse;
  readonly #limits: Required<OpenSpacesOptions>;
  #sweep: unknown;
  /** Opens from peers waiting for a space to close, with every open one in use. */
  readonly #slotWaiters = new Set<() => void>();
  /** Where each space closed stood then (see {@link closedHello}); dropped as it opens again. */
  readonly #closedAt = new Map<string, ClosedHello>();
  #closed = false;
  /**
   * The slots of sessions at once, over all connections: half the most open, so sessions keep
   * their spaces open and the other half is room for the spaces peers' messages open.
   */
  readonly sessions: SessionSlots;

  constructor(private readonly config: OpenSpacesConfig) {
    this.#limits = openSpacesLimits(config.limits);
    this.#use = new SpaceUse(config.now);
    this.sessions = new SessionSlots(Math.max(1, Math.floor(this.#limits.max / 2)));
  }

  /** Throws `closed` once the node closed. */
  check(): void {
    if (this.#closed) throw new MincaError('closed', 'the node is closed');
  }

  /** The open space `id`, opening it when known but not open yet; `unknown_space` otherwise. */
  member(id: string): Promise<OpenSpace> {
    this.check();
    if (typeof id !== 'string' || !SPACE_ID.test(id)) {
      throw new MincaError(
        'unknown_space',
        `${JSON.stringify(String(id).slice(0, 40))} is not a space id`,
      );
    }
    this.#use.touch(id);
    const entry = this.#members.get(id);
    if (entry) return entry.opening;
    return this.#open(this.#members, id, async () => {
      const { registry, stores, clock, key, identity } = this.config;
      const registered = await registry.getSpace(id);
      if (!registered) throw new MincaError('unknown_space', `space ${id} is not known here`);
      const store = await openStore(stores, spaceStorePath(id));
      return new OpenSpace(registered, store, clock, key, identity);
    });
  }

  /** Opens a space held without its key. */
  held(entry: HeldEntry): Promise<HeldSpace> {
    this.check();
    this.#use.touch(entry.id);
    const open = this.#held.get(entry.id);
    if (open) return open.opening;
    return this.#open(this.#held, entry.id, async () => {
      const store = await openStore(this.config.stores, spaceStorePath(entry.id));
      return HeldSpace.open(entry, store, this.config.holding ?? {});
    });
  }

  /**
   * Runs `read` on held space `entry` as its store has it: the open space when it is open, else
   * its store opened alone, without the hooks, and closed after. So counting a host's spaces
   * starts no files, mirror pulls or peers for those nothing uses. An open of the space
   * meanwhile waits for it, as for a close.
   */
  async peekHeld<T>(entry: HeldEntry, read: (space: HeldSpace) => Promise<T>): Promise<T> {
    this.check();
    const { id } = entry;
    if (this.isOpen(id)) {
      const done = this.keepOpen(id);
      try {
        return await read(await this.held(entry));
      } finally {
        done();
      }
    }
    // Set before anything awaits: an open from here on finds it and waits.
    const before = this.#closing.get(id);
    const peek = (async () => {
      await before;
      const store = await openStore(this.config.stores, spaceStorePath(id));
      try {
        return await read(await HeldSpace.open(entry, store, this.config.holding ?? {}));
      } finally {
        await store.close();
      }
    })();
    this.#opensWaitFor(id, peek);
    return peek;
  }

  /** Space `id` as sync, files and mirrors see it: with its key, or held without it. */
  async view(id: string): Promise<SpaceView> {
    const open = this.#held.get(id);
    if (open) {
      this.#use.touch(id);
      return open.opening;
    }
    const { registry } = this.config;
    if (!(await registry.getSpace(id))) {
      const held = await registry.getHeld(id);
      if (held) return this.held(held);
    }
    return this.member(id);
  }

  /**
   * As {@link view}, for a peer: with every open space in use and as many open as allowed, it
   * waits for one to close (a sync mid-session ends, or goes stale) rather than open one more.
   */
  async viewForPeer(id: string): Promise<SpaceView> {
    while (!this.isOpen(id) && this.#count() >= this.#limits.max) {
      this.check();
      // The least recently used idle space, else one only syncing; its close is waited for.
      const closing = this.#closeLeastRecent(true);
      if (closing) {
        await closing.catch(() => undefined);
        continue;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#slotWaiters.delete(wake);
          resolve();
        };
        this.#slotWaiters.add(wake);
        void sleep(sweepPeriod(this.#limits.idleMs)).then(wake);
      });
    }
    return this.view(id);
  }

  /** Runs `work` with member space `id` open; it stays open until `work` ends. */
  async using<T>(id: string, work: (space: OpenSpace) => Promise<T>): Promise<T> {
    const opening = this.member(id);
    const end = this.#use.begin(id);
    try {
      return await work(await opening);
    } finally {
      this.#ended(id, end);
    }
  }

  /** As {@link using}, with the space as sync and files see it (held without its key too). */
  async usingView<T>(id: string, work: (space: SpaceView) => Promise<T>): Promise<T> {
    this.check();
    const end = this.#use.begin(id);
    try {
      return await work(await this.view(id));
    } finally {
      this.#ended(id, end);
    }
  }

  /** A use of `id` ended; a space that did not open (unknown) leaves nothing behind. */
  #ended(id: string, end: () => void): void {
    end();
    if (!this.isOpen(id)) this.#use.closed(id);
  }

  /** Keeps space `id` open (for a listener) until the returned function is called. */
  keepOpen(id: string): () => void {
    const end = this.#use.begin(id);
    return () => this.#ended(id, end);
  }

  /** Space `id` was used just now (a peer's message for it): its idle time starts again. */
  touch(id: string): void {
    if (this.isOpen(id)) this.#use.touch(id);
  }

  /** Whether space `id` is open (or opening) now. */
  isOpen(id: string): boolean {
    return this.#members.has(id) || this.#held.has(id);
  }

  /**
   * Where space `id` stood as it last closed (its fingerprint and counts), while it is closed
   * and not closing: only this node opens its store to write, so it still stands there. A
   * connection says hello in it with that instead of opening it (spec 06 §4.1).
   */
  closedHello(id: string): ClosedHello | undefined {
    return this.isOpen(id) || this.#closing.has(id) ? undefined : this.#closedAt.get(id);
  }

  /** Closes an open member space, if open; calls open it again. */
  async close(id: string): Promise<void> {
    const entry = this.#members.get(id);
    if (!entry) return;
    const space = await entry.opening.catch(() => undefined);
    if (this.#members.get(id) === entry && space) await this.#closeOpen(this.#members, id);
  }

  /** Closes a held space, if open. */
  async closeHeld(id: string): Promise<void> {
    const entry = this.#held.get(id);
    const space = await entry?.opening.catch(() => undefined);
    if (entry && space && this.#held.get(id) === entry) await this.#closeOpen(this.#held, id);
    else await this.config.hooks.closing(id);
  }

  /** The member spaces open now (of `ids`, when given), once opened. */
  async openMembers(ids?: readonly string[]): Promise<OpenSpace[]> {
    const out: OpenSpace[] = [];
    for (const [id, entry] of this.#members) {
      if (ids && !ids.includes(id)) continue;
      const space = await entry.opening.catch(() => undefined);
      if (space) out.push(space);
    }
    return out;
  }

  stats(): OpenSpacesStats {
    const members = this.#members.size;
    const held = this.#held.size;
    const { running, waiting, limit } = this.sessions;
    const sessions = { running, waiting, max: limit };
    return { open: members + held, members, held, ...this.#limits, sessions };
  }

  /** Closes what has been idle past the limit; past the most open, the least recently used. */
  async closeIdle(): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const id of [...this.#use.leastRecent()]) {
      if (this.#use.idleFor(id) < this.#limits.idleMs) break;
      if (this.#closable(id) === 'idle') closing.push(this.#closeById(id));
    }
    while (this.#count() > this.#limits.max) {
      const next = this.#closeLeastRecent();
      if (!next) break;
      closing.push(next);
    }
    await Promise.all(closing);
  }

  /** Closes every open space; no more open after this. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    if (this.#sweep !== undefined) clearRepeating(this.#sweep);
    this.#sweep = undefined;
    for (const wake of [...this.#slotWaiters]) wake();
    const open = [...this.#members.values(), ...this.#held.values()];
    this.#members.clear();
    this.#held.clear();
    for (const entry of open) {
      const space = await entry.opening.catch(() => undefined);
      if (space) await this.#closeSpace(space);
    }
    await Promise.all(this.#closing.values());
  }

  #count(): number {
    return this.#members.size + this.#held.size;
  }

  #open<S extends AnySpace>(
    map: Map<string, Entry<S>>,
    id: string,
    make: () => Promise<S>,
  ): Promise<S> {
    this.#closedAt.delete(id);
    const entry: Entry<S> = {
      opening: (async () => {
        await this.#closing.get(id);
        const space = await make();
        await this.config.hooks.opened(space);
        return space;
      })(),
    };
    map.set(id, entry);
    entry.opening.then(
      (space) => {
        entry.space = space;
        this.#opened();
      },
      () => {
        if (map.get(id) !== entry) return;
        map.delete(id);
        this.#use.closed(id);
      },
    );
    return entry.opening;
  }

  /** A space opened: past the most open, the least recently used idle one closes. */
  #opened(): void {
    this.#sweep ??= setHousekeeping(
      () => void this.closeIdle().catch(() => undefined),
      sweepPeriod(this.#limits.idleMs),
    );
    while (this.#count() > this.#limits.max) {
      const closing = this.#closeLeastRecent();
      if (!closing) break;
      void closing.catch(() => undefined);
    }
  }

  /**
   * `idle` when open and nothing uses it now: no call, listener, file read nor sync
   * mid-session; `syncing` when only a sync mid-session does; else undefined.
   */
  #closable(id: string): 'idle' | 'syncing' | undefined {
    const entry = this.#members.get(id) ?? this.#held.get(id);
    if (entry?.space === undefined || this.#use.inUse(id)) return undefined;
    const busy = this.config.hooks.busy(id);
    return busy === undefined ? 'idle' : busy === 'syncing' ? 'syncing' : undefined;
  }

  /**
   * Closes the least recently used space nothing uses (see {@link #closable}), if any; else,
   * with `syncing`, the least recently used one only syncing. One pass over the open spaces,
   * not one for each kind: with all of them syncing (a connection saying hello in more spaces
   * than may be open), every open looked at each open space twice.
   */
  #closeLeastRecent(syncing = false): Promise<void> | undefined {
    let onlySyncing: string | undefined;
    for (const id of this.#use.leastRecent()) {
      const state = this.#closable(id);
      if (state === 'idle') return this.#closeById(id);
      if (state === 'syncing') onlySyncing ??= id;
    }
    return syncing && onlySyncing !== undefined ? this.#closeById(onlySyncing) : undefined;
  }

  #closeById(id: string): Promise<void> {
    return this.#members.has(id)
      ? this.#closeOpen(this.#members, id)
      : this.#closeOpen(this.#held, id);
  }

  /** Closes open space `id` of `map`: gone from the map at once, so a new call opens it anew. */
  #closeOpen<S extends AnySpace>(map: Map<string, Entry<S>>, id: string): Promise<void> {
    const space = map.get(id)?.space;
    map.delete(id);
    this.#use.closed(id);
    if (!space) return Promise.resolve();
    // No close of `id` can be under way: its opening waited for the last. The hooks' first,
    // synchronous part runs now, so no peer's message reaches the space after this.
    const closing = this.#closeSpace(space);
    void this.#opensWaitFor(id, closing).then(() => {
      for (const wake of [...this.#slotWaiters]) wake();
    });
    return closing;
  }

  /** Opens of `id` wait until `work` ends, however it ends (a close, or a read of its store). */
  #opensWaitFor(id: string, work: Promise<unknown>): Promise<void> {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.#closing.set(id, settled);
    void settled.then(() => {
      if (this.#closing.get(id) === settled) this.#closing.delete(id);
    });
    return settled;
  }

  async #closeSpace(space: AnySpace): Promise<void> {
    await this.config.hooks.closing(space.id);
    const { store } = space;
    await store.close();
    // Taken once every write is in; an open begun meanwhile drops it again as it opens.
    if (!this.isOpen(space.id)) {
      const fingerprint = fromHex(store.fingerprint());
      this.#closedAt.set(space.id, { fingerprint, counts: store.counts() });
    }
  }
}
