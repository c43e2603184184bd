/** `node.spaces`: making, opening, sharing and closing spaces, and what each one stands at. */
import type { HybridClock } from '../clock.js';
import { MincaError } from '../errors.js';
import { verifyRevocation } from '../identity/certificate.js';
import { randomId } from '../ids.js';
import type { MirrorStatus } from '../mirror/space-mirror.js';
import type { Registry } from '../registry.js';
import { randomKey } from '../seal.js';
import type { SharingIndex } from '../sharing-index.js';
import type { HolderKind } from '../space/holders.js';
import { rotateKey, setHolder, setRole, writeRevocation } from '../space/member-records.js';
import type { InviteReuse, Role } from '../space/membership.js';
import { OpenSpace } from '../space/open-space.js';
import type { PeerSpaceStatus } from '../sync/sync-host.js';
import type { HeldSpaceInfo, Holding } from './holding.js';
import type { Invites, SpaceInfo, SpaceTicket } from './invites.js';
import type { NodeMirrors } from './node-mirrors.js';
import type { OpenSpaces, OpenSpacesStats } from './open-spaces.js';
import type { Peers } from './peers.js';
import type { ReusedInvite, ReuseWatch } from './reuse-watch.js';

/** What `spaces.status` tells of a space. */
export interface SpaceStatus {
  id: string;
  owner: string;
  /** The Negentropy fingerprint of every collection together, as hex. */
  fingerprint: string;
  versions: number;
  collections: string[];
  /** Index entries of the store that could not be read. */
  problems: readonly string[];
  /** Each connected peer sharing the space: whether this node is synced and level with it. */
  peers: PeerSpaceStatus[];
  /** Each mirror of the space, by index. */
  mirrors: MirrorStatus[];
  /**
   * Invites of this space accepted by more than one account (a forwarded link): each of them
   * has the role, and the owner may remove one (`removeMember`). Empty on a holder.
   */
  reusedInvites: InviteReuse[];
}

/** Who a writer key writes for (see `spaces.writerOf`). */
export interface WriterInfo {
  account: string;
  device?: string;
  /** The labels its certificates give, for people. */
  label?: string;
  deviceLabel?: string;
  /** Its key or its device was revoked: what it signs from then on does not stand. */
  revoked: boolean;
}

export interface SpacesApiParts {
  did: string;
  clock: HybridClock;
  registry: Registry;
  spaces: OpenSpaces;
  sharing: SharingIndex;
  peers: Peers;
  mirrors: NodeMirrors;
  invites: Invites;
  holding: Holding;
  reuses: ReuseWatch;
  /** Runs the pass over a space's `sys.*` that follows a change to it (one at a time per space). */
  learnFromSystem(space: OpenSpace): Promise<void>;
}

export function spacesApi(parts: SpacesApiParts) {
  const { did, clock, registry, spaces, sharing, peers, mirrors, invites, holding, reuses } = parts;
  const { learnFromSystem } = parts;
  /** Runs `work` with space `id`, open, as its owner, for what only the owner does. */
  const owned = (id: string, what: string, work: (space: OpenSpace) => Promise<void>) =>
    spaces.using(id, async (space) => {
      if (space.owner !== did)
        throw new MincaError('not_authorized', `only the space owner ${what}`);
      await work(space);
    });
  return {
    /** Creates a space owned by this node's key, and opens it. */
    create: async (): Promise<SpaceInfo> => {
      spaces.check();
      const id = randomId();
      await registry.putSpace({ id, key: randomKey(), owner: did, added: clock.tick() });
      await spaces.member(id);
      await sharing.update(id);
      return { id, owner: did };
    },
    /** Opens a known space; `unknown_space` otherwise. */
    open: async (id: string): Promise<SpaceInfo> => {
      const space = await spaces.member(id);
      return { id, owner: space.owner };
    },
    /** Closes an open space; records calls open it again. */
    close: (id: string): Promise<void> => spaces.close(id),
    /**
     * How many spaces are open now, and the limits in force (`NodeConfig.openSpaces`): a space
     * nothing used for `idleMs` closes, and past `max` open the least recently used idle one
     * does (spec 06 §4.1). Calls and peers' messages open a closed space again.
     */
    stats: (): OpenSpacesStats => spaces.stats(),
    /**
     * Pushes what the space's mirrors lack and pulls what they hold, now, rather than at the
     * next timer. Rejects with the first mirror's failure, after every mirror ran.
     */
    syncMirrors: async (id: string): Promise<void> => {
      await spaces.view(id); // held without its key too
      await mirrors.sync(id);
    },
    /**
     * The spaces this node shares with `did`, an account or a holder: those where it has a role
     * or the owner lets it hold the space. A sync with `did` should share every one of them.
     */
    sharedWith: async (did: string): Promise<string[]> => {
      spaces.check();
      return (await sharing.spacesFor(did)).sort();
    },
    /**
     * Who writer key `writer` writes for in space `id`, by the certificates the space holds:
     * its account, device and labels, and whether it is revoked now. A key with no
     * certificates here is its own account.
     */
    writerOf: async (id: string, writer: string): Promise<WriterInfo> => {
      const membership = await (await spaces.member(id)).membership();
      const identity = membership.writer(writer);
      return {
        account: identity?.account ?? writer,
        ...(identity?.device ? { device: identity.device } : {}),
        ...(identity?.label !== undefined ? { label: identity.label } : {}),
        ...(identity?.deviceLabel !== undefined ? { deviceLabel: identity.deviceLabel } : {}),
        revoked: membership.accountAt(writer, clock.tick()) === undefined,
      };
    },
    /** The accounts with a role in space `id` now, and their roles, by DID. */
    members: async (id: string): Promise<Array<{ did: string; role: Role }>> => {
      const members = (await (await spaces.member(id)).membership()).members();
      return [...members]
        .map(([did, role]) => ({ did, role }))
        .sort((a, b) => (a.did < b.did ? -1 : 1));
    },
    /** The ids of every space known here. */
    list: async (): Promise<string[]> => {
      spaces.check();
      return (await registry.spaceIds()).sort();
    },
    status: async (id: string): Promise<SpaceStatus> => {
      const space = await spaces.view(id);
      const reusedInvites =
        space instanceof OpenSpace ? (await space.membership()).reusedInvites() : [];
      return {
        id,
        // A space held without its key has no owner this node could tell.
        owner: space instanceof OpenSpace ? space.owner : '',
        fingerprint: space.store.fingerprint(),
        versions: space.store.versionCount(),
        collections: space.store.collectionNames(),
        problems: space.store.problems,
        peers: peers.status(id),
        mirrors: mirrors.status(id),
        reusedInvites,
      };
    },
    /**
     * What another node needs to join space `id` as `did`: the space's id, key and owner, and
     * the owner's grant of `did`'s role, so the joiner knows its role before it first syncs.
     * It holds the space key: hand it over only to `did`, over a channel you trust.
     */
    share: (id: string, did: string): Promise<SpaceTicket> => invites.share(id, did),
    /**
     * An invite to space `id` with `role`: a code to hand to one person over a channel you
     * trust (it holds the space key). It stays in the registry until someone uses it.
     */
    invite: (id: string, options: { role?: Role } = {}): Promise<string> =>
      invites.invite(id, options.role ?? 'writer'),
    /**
     * Calls `listener` when an invite of a space this node owns is accepted by one more account
     * than before (a forwarded link): every acceptance keeps its role; the owner may remove one.
     */
    onReusedInvite: (listener: (event: ReusedInvite) => void): (() => void) =>
      reuses.subscribe(listener),
    /** This node's invites to space `id` that nobody has used yet. */
    invites: (id: string): Promise<Array<{ id: string; role: string }>> => invites.unused(id),
    /** Joins with an invite code (from `invite`) or a {@link SpaceTicket}, and opens the space. */
    join: (ticket: SpaceTicket | string): Promise<SpaceInfo> => invites.join(ticket),
    /**
     * Lets the host or carrier `did` hold space `id` without its key (a `sys.holder` record):
     * members then name the space to it and prove they hold it (spec 05 §7.3). Owner only.
     */
    allowHolder: async (id: string, did: string, kind: HolderKind = 'host'): Promise<void> => {
      await owned(id, 'allows holders', async (space) => {
        if (kind !== 'host' && kind !== 'carrier')
          throw new MincaError('invalid_input', 'a holder is a host or a carrier');
        await setHolder(space, did, kind);
      });
    },
    /** No longer lets `did` hold space `id`: members stop naming it there. Owner only. */
    removeHolder: async (id: string, did: string): Promise<void> => {
      await owned(id, 'removes holders', (space) => setHolder(space, did, undefined));
    },
    /**
     * The spaces this node holds without their key (a host's or carrier's), with what each
     * holds. It reads each one's store (one not open is read without opening it for use: no
     * mirror pull or peer starts for it), so list them once in a while, not per request.
     */
    held: (): Promise<HeldSpaceInfo[]> => holding.list(),
    /**
     * Stops holding space `id` (held without its key): forgets it in the registry and closes it.
     * Its versions stay in the store; a peer offering it again goes through `acceptSpace` anew.
     */
    release: (id: string): Promise<void> => holding.release(id),
    /** Grants account `did` a role in the space. Only the owner's grants count. */
    setRole: async (id: string, did: string, role: Role): Promise<void> => {
      await owned(id, 'grants roles', (space) => setRole(space, did, role));
    },
    /**
     * Takes account `did`'s role away, from now on (what it wrote before keeps standing), and
     * changes the space's key, so it can't read what is written after (spec 05 §7.4). Owner only.
     */
    removeMember: async (id: string, did: string): Promise<void> => {
      await owned(id, 'removes members', async (space) => {
        if (did === space.owner) throw new MincaError('invalid_input', 'the owner stays the owner');
        await setRole(space, did, 'none');
        await registry.putSpace(await rotateKey(space));
      });
    },
    /** Changes the space's key now, for what is written after (spec 05 §7.4). Owner only. */
    rotateKey: async (id: string): Promise<void> => {
      await owned(id, 'changes the key', async (space) => {
        await registry.putSpace(await rotateKey(space));
      });
    },
    /**
     * Takes in the account root's revocation of one of its devices or writers (spec 05 §6):
     * from its time on, what that key signs no longer stands. It is kept in every space this
     * node may write in, where every member finds it, and the spaces this node owns change key.
     */
    revoke: async (statement: Uint8Array): Promise<void> => {
      spaces.check();
      const revocation = await verifyRevocation(statement);
      await registry.putRevoked(revocation.subject, statement);
      for (const id of await registry.spaceIds()) {
        await spaces.using(id, async (space) => {
          const role = await space.roleOf(did);
          if (role !== 'owner' && role !== 'writer') return;
          await writeRevocation(space, revocation.subject, statement);
          // The pass over sys.* that the revocation starts changes the key where it is due:
          // waited for, so the key has changed when this returns.
          if (space.owner === did) await learnFromSystem(space);
        });
      }
    },
  };
}

export type SpacesApi = ReturnType<typeof spacesApi>;
