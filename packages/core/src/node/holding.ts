/**
 * Holding spaces without their key (spec 05 §7.3): which spaces a peer proved it holds this
 * node keeps, as its policy allows; the spaces held and what each holds; letting one go.
 */
import { MincaError } from '../errors.js';
import { FileStore } from '../files/file-store.js';
import type { HoldingPolicy } from '../hosting/holding-policy.js';
import type { HeldEntry, Registry } from '../registry.js';
import type { Admission, OfferedSpace } from '../sync/sync-host.js';
import type { OpenSpaces } from './open-spaces.js';

/** A space this node holds without its key (spec 05 §7.3). */
export interface HeldSpaceInfo {
  id: string;
  /** The space's access DID, which every peer proves the space with. */
  access: string;
  /** The peer that first offered it. */
  offeredBy: string;
  /** When this node started holding it, ms. */
  added: number;
  versions: number;
  /** Bytes of the versions held. */
  bytes: number;
  /** Sealed bytes of the file chunks held (as `node.files.bytes` counts them). */
  files: number;
  /** The Negentropy fingerprint of every collection together, as hex (as `spaces.status` gives). */
  fingerprint: string;
}

export class Holding {
  constructor(
    private readonly registry: Registry,
    private readonly spaces: OpenSpaces,
    private readonly policy: HoldingPolicy,
    private readonly now: () => number,
    /** Told of the spaces newly held by one offer, once all are (fleet peers hear of them). */
    private readonly onHeld: (entries: readonly HeldEntry[]) => void = () => undefined,
  ) {}

  /**
   * Takes the spaces a peer proved, as the policy allows. Cheap checks go first (held under
   * another access DID, the policy), so a peer makes this node check a signature only for a
   * space it would keep; every such proof must verify before any space is kept.
   */
  async admit(did: string, offered: readonly OfferedSpace[]): Promise<Admission> {
    const answer: Admission = { admitted: [], refused: [] };
    const keep: Array<{ offer: OfferedSpace; entry: HeldEntry; fresh: boolean }> = [];
    for (const offer of offered) {
      const { space: id, access } = offer;
      // A space this node has the key of is shared by role, not held.
      if (await this.registry.getSpace(id)) continue;
      let entry = await this.registry.getHeld(id);
      const fresh = entry === undefined;
      // Held by another node of the fleet: held here under the same access DID and account.
      if (!entry) {
        const known = await this.policy.heldElsewhere?.(id);
        if (known?.space === id) {
          const { access: knownAccess, offeredBy, added } = known;
          entry = { id, access: knownAccess, offeredBy, added };
        }
      }
      if (!entry) {
        const reason = await this.policy.acceptSpace?.({ space: id, peer: did, access });
        if (reason !== undefined) {
          answer.refused.push({ space: id, reason: String(reason).slice(0, 400) });
          continue;
        }
        entry = { id, access, offeredBy: did, added: this.now() };
      }
      if (entry.access !== access) {
        answer.refused.push({ space: id, reason: 'it is held here under another access key' });
        continue;
      }
      keep.push({ offer, entry, fresh });
    }
    for (const { offer } of keep) {
      if (!(await offer.verify()))
        throw new MincaError(
          'protocol',
          `the access proof for space ${offer.space} does not verify`,
        );
    }
    const held = keep.filter((k) => k.fresh).map((k) => k.entry);
    await this.registry.putHeld(held);
    for (const { entry, fresh } of keep) {
      answer.admitted.push(entry.id);
      // One held already opens when the peer's sync needs it: opening each again at every
      // connection, past the most open at once, would close and open them all once more.
      if (!fresh) continue;
      // Opened as a peer opens spaces: within the most open at once.
      await this.spaces.viewForPeer(entry.id);
      const { id: space, access, offeredBy, added } = entry;
      await this.policy.spaceHeld?.({ space, access, offeredBy, added });
    }
    // Once for the offer: however long opening its spaces took, the fleet hears of them in one.
    if (held.length > 0) this.onHeld(held);
    return answer;
  }

  /**
   * Every space held, with what each holds, versions and files, and its fingerprint, as its
   * store has it: a space not open is read without opening it for use (no files, mirrors or
   * peers start), so a host counting its spaces as it starts pulls none from its bucket.
   */
  async list(): Promise<HeldSpaceInfo[]> {
    this.spaces.check();
    const out: HeldSpaceInfo[] = [];
    for (const id of (await this.registry.heldIds()).sort()) {
      const entry = await this.registry.getHeld(id);
      if (!entry) continue;
      const { access, offeredBy, added } = entry;
      out.push(
        await this.spaces.peekHeld(entry, async (space) => ({
          id,
          access,
          offeredBy,
          added,
          versions: space.store.versionCount(),
          bytes: space.heldBytes,
          files: (await FileStore.open(space.store, undefined, false)).heldBytes(),
          fingerprint: space.store.fingerprint(),
        })),
      );
    }
    return out;
  }

  /** Stops holding space `id`: forgets it in the registry and closes it; its versions stay. */
  async release(id: string): Promise<void> {
    this.spaces.check();
    if (!(await this.registry.getHeld(id)))
      throw new MincaError('unknown_space', `space ${id} is not held here`);
    await this.registry.deleteHeld(id);
    await this.spaces.closeHeld(id);
  }
}
