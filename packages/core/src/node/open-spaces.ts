/**
 * The spaces a node has open, and opening them on demand: a member's ({@link OpenSpace}, from
 * its registry entry and key) or a holder's ({@link HeldSpace}, without the key). Each is opened
 * once; what else a space needs while open (files, mirrors, peers hearing of changes) comes in
 * through {@link SpaceHooks}.
 */
import type { StoreFactory } from '../adapter.js';
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
import { openStore, spaceStorePath } from './open-store.js';

/** What the node does as a space opens and closes. */
export interface SpaceHooks {
  /** A space just opened, before anyone else gets it. */
  opened(space: OpenSpace | HeldSpace): Promise<void>;
  /** A space is closing: after this its store closes. */
  closing(id: string): Promise<void>;
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
}

export class OpenSpaces {
  readonly #members = new Map<string, Promise<OpenSpace>>();
  /** Spaces held without their key, open. */
  readonly #held = new Map<string, Promise<HeldSpace>>();
  #closed = false;

  constructor(private readonly config: OpenSpacesConfig) {}

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
    let opening = this.#members.get(id);
    if (!opening) {
      opening = (async () => {
        const { registry, stores, clock, key, identity, hooks } = this.config;
        const entry = await registry.getSpace(id);
        if (!entry) throw new MincaError('unknown_space', `space ${id} is not known here`);
        const store = await openStore(stores, spaceStorePath(id));
        const space = new OpenSpace(entry, store, clock, key, identity);
        await hooks.opened(space);
        return space;
      })();
      this.#members.set(id, opening);
      opening.catch(() => this.#members.delete(id));
    }
    return opening;
  }

  /** Opens a space held without its key. */
  held(entry: HeldEntry): Promise<HeldSpace> {
    this.check();
    let opening = this.#held.get(entry.id);
    if (!opening) {
      opening = (async () => {
        const store = await openStore(this.config.stores, spaceStorePath(entry.id));
        const space = await HeldSpace.open(entry, store, this.config.holding ?? {});
        await this.config.hooks.opened(space);
        return space;
      })();
      this.#held.set(entry.id, opening);
      opening.catch(() => this.#held.delete(entry.id));
    }
    return opening;
  }

  /** Space `id` as sync, files and mirrors see it: with its key, or held without it. */
  async view(id: string): Promise<SpaceView> {
    const opening = this.#held.get(id);
    if (opening) return opening;
    const { registry } = this.config;
    if (!(await registry.getSpace(id))) {
      const held = await registry.getHeld(id);
      if (held) return this.held(held);
    }
    return this.member(id);
  }

  /** Closes an open member space, if open; calls open it again. */
  async close(id: string): Promise<void> {
    const opening = this.#members.get(id);
    if (!opening) return;
    this.#members.delete(id);
    await this.#closeSpace(await opening);
  }

  /** Closes a held space, if open. */
  async closeHeld(id: string): Promise<void> {
    const opening = this.#held.get(id);
    this.#held.delete(id);
    const space = await opening?.catch(() => undefined);
    if (space) await this.#closeSpace(space);
    else await this.config.hooks.closing(id);
  }

  /** The member spaces open now (of `ids`, when given), once opened. */
  async openMembers(ids?: readonly string[]): Promise<OpenSpace[]> {
    const out: OpenSpace[] = [];
    for (const [id, opening] of this.#members) {
      if (ids && !ids.includes(id)) continue;
      const space = await opening.catch(() => undefined);
      if (space) out.push(space);
    }
    return out;
  }

  /** Closes every open space; no more open after this. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    const open = [...this.#members.values(), ...this.#held.values()];
    this.#members.clear();
    this.#held.clear();
    for (const opening of open) {
      const space = await opening.catch(() => undefined);
      if (space) await this.#closeSpace(space);
    }
  }

  async #closeSpace(space: OpenSpace | HeldSpace): Promise<void> {
    await this.config.hooks.closing(space.id);
    await space.store.close();
  }
}
