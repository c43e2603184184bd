/**
 * What one side sends its peer of one space (spec 05 §8, §10.1): versions read from the store a
 * part at a time, each part once the connection has room, packed into `vers` messages as they
 * come; and ahead of anything sealed under an owner's key, the key records (`sys.key`) the peer
 * may lack, so it can open what follows.
 */

import { isSystemCollection } from '../names.js';
import { KEY_COLLECTION } from '../space/space-keys.js';
import type { SpaceView } from '../space/space-view.js';
import type { Version } from '../version.js';
import { type Outgoing, outgoing, READ_PART, VersPacker } from './outgoing.js';
import type { SyncChannel } from './reconciliation.js';

export class SpaceSender {
  /**
   * The owner's key records the peer holds, by what this side knows: sent, taken from it, or
   * level at the last pass over `sys.*`. One it may lack goes ahead of anything else sent, so
   * nothing sealed under a new key comes before the key.
   */
  readonly #keysShown = new Set<string>();
  /**
   * The key records held when this session's pass over `sys.*` began: once it is level, the
   * peer holds these. Not those written during it: a range settled before one came never
   * showed it.
   */
  #keysAtPass: string[] | undefined;

  constructor(
    private readonly space: SpaceView,
    private readonly channel: SyncChannel,
  ) {}

  /** Versions taken from the peer: the key records among them it holds. */
  taken(versions: readonly Version[]): void {
    for (const v of versions) if (v.collection === KEY_COLLECTION) this.#keysShown.add(v.id);
  }

  /**
   * Sends the versions of `ids` held (all of `collection`, when given), read a part at a time,
   * each once the connection has room: a peer that reads nothing can't make this side read and
   * hold all it asks for or lacks. The last message answers want `q`, when given.
   */
  async sendIds(ids: readonly string[], collection?: string, q?: number): Promise<void> {
    const { store } = this.space;
    // Past the body cache when it can't hold them all, as a pull's pages are read.
    const keep = store.fitsBodyCache(ids.length);
    const packer = this.#packer();
    for (let at = 0; at < ids.length; at += READ_PART) {
      // The connection ended or the space closed: the peer's want goes stale and is asked again.
      if (!(await this.channel.room())) return;
      const part = ids.slice(at, at + READ_PART);
      packer.add(await this.#keysAhead(await outgoing(store, part, collection, keep)));
    }
    packer.end(q);
  }

  /** Sends `page`, a pull's answer (read a part at a time already); the last message answers `q`. */
  async sendPage(page: Outgoing[], q: number): Promise<void> {
    const packer = this.#packer();
    packer.add(await this.#keysAhead(page));
    packer.end(q);
  }

  /**
   * A pass over `sys.*` reached `collection`. The key records held as `sys.key` itself begins
   * are what the peer holds once the pass is level: a key written later, or a pass that never
   * reconciled `sys.key` (the peer's hello named none), shows the peer nothing.
   */
  systemPass(collection: string): void {
    if (collection !== KEY_COLLECTION) return;
    this.#keysAtPass ??= [...this.space.store.items(KEY_COLLECTION)].map(([, id]) => id);
  }

  /** `sys.*` is level with the peer's in this session: it holds the key records held as `sys.key` began. */
  systemLevel(): void {
    for (const id of this.#keysAtPass ?? []) this.#keysShown.add(id);
    this.#keysAtPass = undefined;
  }

  /** Packs versions into `vers` messages of this space, each sent as it fills. */
  #packer(): VersPacker {
    return new VersPacker(this.space.id, (message) => this.channel.send(message));
  }

  /**
   * `versions`, with the key records the peer may lack in front when any of them is an app's:
   * a key changed while a session ran past `sys.*` must reach the peer before what is sealed
   * under it, or the peer could open neither.
   */
  async #keysAhead(versions: Outgoing[]): Promise<Outgoing[]> {
    for (const v of versions) if (v.collection === KEY_COLLECTION) this.#keysShown.add(v.id);
    if (versions.every((v) => isSystemCollection(v.collection))) return versions;
    const unshown: string[] = [];
    for (const [, id] of this.space.store.items(KEY_COLLECTION))
      if (!this.#keysShown.has(id)) unshown.push(id);
    if (unshown.length === 0) return versions;
    for (const id of unshown) this.#keysShown.add(id);
    const ahead = (await this.space.store.getVersions(unshown)).filter(
      (v): v is Version => v !== undefined,
    );
    // In epoch order: each key record is sealed under the key before it.
    const epoch = (v: Version) => Number(v.record.slice(1)) || 0;
    ahead.sort((a, b) => epoch(a) - epoch(b) || a.timestamp - b.timestamp);
    return [...ahead, ...versions];
  }
}
