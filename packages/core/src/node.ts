/**
 * The node: what an app holds. It opens spaces from its stores, and reads and writes records.
 * `createNode` is the entry point.
 */
import type { MirrorConfig, StoreFactory } from './adapter.js';
import type { BlobStore } from './blob-store.js';
import type { BodyValue } from './body.js';
import { HybridClock } from './clock.js';
import { MincaError } from './errors.js';
import type { FileRef } from './file-ref.js';
import type { FileLimits } from './files/limits.js';
import { NodeFiles } from './files/node-files.js';
import type { FileSourceProvider } from './files/source.js';
import type { AddFileOptions, ReadFileOptions } from './files/space-files.js';
import { type HeldEntry, HeldSpace } from './hosting/held-space.js';
import { HOLDER_COLLECTION, type HolderKind } from './hosting/holders.js';
import type { HoldingPolicy } from './hosting/holding-policy.js';
import { randomId, SPACE_ID } from './ids.js';
import { decodeInvite, encodeInvite, MAX_INVITE_HOLDERS } from './invite-code.js';
import { SigningKey } from './keys.js';
import { ACCEPT_COLLECTION, didRecordId, MEMBER_COLLECTION, type Role } from './membership.js';
import { heldMirroring } from './mirror/held-mirroring.js';
import { mirroredFiles } from './mirror/node-files-view.js';
import type { MirroredSpace, MirrorStatus } from './mirror/space-mirror.js';
import {
  type MirrorErrorListener,
  type ResolvedMirror,
  resolveMirrors,
  SpaceMirrors,
} from './mirror/space-mirrors.js';
import { isSystemCollection } from './names.js';
import { Registry } from './registry.js';
import { randomKey } from './seal.js';
import { SharingIndex } from './sharing-index.js';
import { type ListOptions, type MincaRecord, OpenSpace, type SpaceChange } from './space.js';
import { Store } from './store.js';
import {
  type Admission,
  Peer,
  type PeerSpaceStatus,
  type ProvenSpace,
  type SyncHost,
} from './sync/peer.js';
import type { Transport } from './sync/transport.js';
import { decodeVerifiedVersion, openBody, type Version } from './version.js';

export interface NodeConfig {
  /** Where the node keeps its stores: `registry`, and `spaces/<id>` per space. */
  stores: StoreFactory;
  /** The key the node signs as. Without one, the node makes one and keeps it in its registry. */
  key?: SigningKey;
  /** The wall clock, ms. For tests. */
  now?: () => number;
  /**
   * Blob stores to mirror every open space to (spec 05 §16), after the store factory's own
   * mirrors: a blob store (push 5 s after a change, pull at open) or a {@link MirrorConfig}.
   */
  mirrors?: readonly (BlobStore | MirrorConfig)[];
  /** Told of what a mirror could not do: a failed push or pull, a segment skipped. */
  onMirrorError?: MirrorErrorListener;
  /**
   * Which files the node fetches and keeps: within its limits (`setFileLimits`), the default,
   * or `'all'`, every file records name, as a carrier or host does.
   */
  fetchFiles?: 'limits' | 'all';
  /**
   * Makes this node a holder (a host or carrier, spec 05 §7.3): it keeps spaces peers offer it
   * without their key, as the policy allows. Members name a space to it once the owner lets
   * its DID hold it (`spaces.allowHolder`).
   */
  holding?: HoldingPolicy;
}

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
}

/** Everything a node needs to join a space: see `spaces.share`. */
export interface SpaceTicket {
  id: string;
  key: Uint8Array;
  owner: string;
  /** The owner's grant of the joiner's role, as version bytes. */
  versions: Uint8Array[];
}

export interface SpaceInfo {
  id: string;
  owner: string;
}

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
}

/** Store path of a space. */
export const spaceStorePath = (id: string) => `spaces/${id}`;
export const REGISTRY_PATH = 'registry';

/** Opens a node over its stores. */
export async function createNode(config: NodeConfig): Promise<MincaNode> {
  const { stores } = config;
  const registry = new Registry(
    await Store.open(await stores.open(REGISTRY_PATH), { bodyCache: stores.bodyCache }),
  );
  const key = config.key ?? (await registry.nodeKey());
  const now = config.now ?? Date.now;
  const files = new NodeFiles(now, config.fetchFiles === 'all');
  const mirrors = resolveMirrors(stores.mirrors, config.mirrors);
  return new MincaNode(
    stores,
    registry,
    key,
    new HybridClock(config.now),
    now,
    files,
    { mirrors, onError: config.onMirrorError },
    config.holding,
  );
}

export class MincaNode {
  readonly #open = new Map<string, Promise<OpenSpace>>();
  /** Spaces held without their key, open. */
  readonly #held = new Map<string, Promise<HeldSpace>>();
  readonly #peers = new Set<Peer>();
  readonly #mirrors = new Map<string, SpaceMirrors>();
  readonly #host: SyncHost;
  readonly #sharing: SharingIndex;
  #closed = false;

  /** @internal Use {@link createNode}. */
  constructor(
    private readonly stores: StoreFactory,
    private readonly registry: Registry,
    private readonly key: SigningKey,
    private readonly clock: HybridClock,
    private readonly now: () => number,
    private readonly fileKeeper: NodeFiles,
    private readonly mirrorConfig: {
      mirrors: readonly ResolvedMirror[];
      onError: MirrorErrorListener | undefined;
    } = { mirrors: [], onError: undefined },
    private readonly holding?: HoldingPolicy,
  ) {
    this.#sharing = new SharingIndex(registry, async (id) => (await this.#space(id)).sharers());
    // readFile falls back to a space's mirrors after its peers.
    fileKeeper.addSources((id) => this.#mirrors.get(id)?.fileSources() ?? []);
    this.#host = {
      did: key.did,
      sign: (message) => key.sign(message),
      now: () => this.now(),
      space: (id) => this.#syncSpace(id),
      files: fileKeeper,
      spacesHeld: async () => [
        ...(await this.registry.spaceIds()),
        ...(await this.registry.heldIds()),
      ],
      // From the sharing index: a handshake opens only the spaces shared with the peer.
      spacesFor: (did) => this.#sharing.spacesFor(did),
      credentials: async (spaces) => {
        const out: Uint8Array[] = [];
        for (const id of spaces) {
          if (!(await this.registry.getSpace(id))) continue; // held without its key: no role
          for (const v of await (await this.#space(id)).credentials(this.did)) out.push(v.bytes);
        }
        return out;
      },
      accessKey: async (id, did) => {
        if (!(await this.registry.getSpace(id))) return undefined;
        const space = await this.#space(id);
        return (await space.holderKind(did)) ? space.accessKey : undefined;
      },
      ...(holding ? { admit: (did, proven) => this.#admit(did, proven) } : {}),
    };
  }

  /** A holder takes the spaces a peer proved, as its policy allows (spec 05 §7.3). */
  async #admit(did: string, proven: readonly ProvenSpace[]): Promise<Admission> {
    const answer: Admission = { admitted: [], refused: [] };
    for (const { space: id, access } of proven) {
      // A space this node has the key of is shared by role, not held.
      if (await this.registry.getSpace(id)) continue;
      let entry = await this.registry.getHeld(id);
      if (!entry) {
        const reason = await this.holding?.acceptSpace?.({ space: id, peer: did, access });
        if (reason !== undefined) {
          answer.refused.push({ space: id, reason: String(reason).slice(0, 400) });
          continue;
        }
        entry = { id, access, offeredBy: did, added: this.now() };
        await this.registry.putHeld(entry);
      }
      if (entry.access !== access) {
        answer.refused.push({ space: id, reason: 'it is held here under another access key' });
        continue;
      }
      await this.#heldSpace(entry);
      answer.admitted.push(id);
    }
    return answer;
  }

  /** The space `id` as sync sees it: with its key, or held without it. */
  async #syncSpace(id: string): Promise<OpenSpace | HeldSpace> {
    const opening = this.#held.get(id);
    if (opening) return opening;
    if (!(await this.registry.getSpace(id))) {
      const held = await this.registry.getHeld(id);
      if (held) return this.#heldSpace(held);
    }
    return this.#space(id);
  }

  /** Opens a space held without its key. */
  #heldSpace(entry: HeldEntry): Promise<HeldSpace> {
    this.#check();
    let opening = this.#held.get(entry.id);
    if (!opening) {
      opening = (async () => {
        const adapter = await this.stores.open(spaceStorePath(entry.id));
        const store = await Store.open(adapter, { bodyCache: this.stores.bodyCache });
        const space = await HeldSpace.open(entry, store, this.holding ?? {});
        // What one member brings, the others hear of soon.
        space.subscribe(() => {
          for (const peer of this.#peers) peer.helloSoon(entry.id);
        });
        // Its files too, from the versions' clear `f`: with `fetchFiles: 'all'` it keeps them all.
        const files = await this.fileKeeper.opened(space);
        // Mirrored as a member's (spec 05 §16), with only a holder's checks (§7.3) and its policy.
        space.subscribe(() => this.#mirrors.get(entry.id)?.changed());
        await this.#startMirrors(
          heldMirroring(space, files, (listener) => this.fileKeeper.subscribe(entry.id, listener)),
        );
        return space;
      })();
      this.#held.set(entry.id, opening);
      opening.catch(() => this.#held.delete(entry.id));
    }
    return opening;
  }

  /**
   * Syncs with the peer at the other end of `transport`: every space both hold and may share.
   * The connection lasts until either side closes it; a peer that breaks the protocol is cut
   * off with a reason (`peer.endReason`), and the node goes on.
   */
  connect(transport: Transport): Peer {
    this.#check();
    const peer = new Peer(this.#host, transport);
    this.#peers.add(peer);
    peer.onEnd = () => {
      this.#peers.delete(peer);
      this.fileKeeper.peerEnded(peer);
    };
    return peer;
  }

  /** The DID this node signs as. */
  get did(): string {
    return this.key.did;
  }

  #check(): void {
    if (this.#closed) throw new MincaError('closed', 'the node is closed');
  }

  /** The open space `id`, opening it when known but not open yet. */
  async #space(id: string): Promise<OpenSpace> {
    this.#check();
    if (typeof id !== 'string' || !SPACE_ID.test(id)) {
      throw new MincaError(
        'unknown_space',
        `${JSON.stringify(String(id).slice(0, 40))} is not a space id`,
      );
    }
    let opening = this.#open.get(id);
    if (!opening) {
      opening = (async () => {
        const entry = await this.registry.getSpace(id);
        if (!entry) throw new MincaError('unknown_space', `space ${id} is not known here`);
        const adapter = await this.stores.open(spaceStorePath(id));
        const store = await Store.open(adapter, { bodyCache: this.stores.bodyCache });
        const space = new OpenSpace(entry, store, this.clock, this.key);
        space.onSharingChange = () => this.#sharing.dirty(id);
        // Read again on every open, so an index update lost to a crash heals.
        this.#sharing.dirty(id);
        // Whatever changed here, peers hear of it soon.
        space.subscribe((change) => {
          const membership = change.collections.some(isSystemCollection);
          for (const peer of this.#peers) {
            peer.helloSoon(id);
            // Someone may have gained a role: the space may now be shared with more peers.
            if (membership) peer.reoffer();
          }
          this.#mirrors.get(id)?.changed();
        });
        const files = await this.fileKeeper.opened(space);
        await this.#startMirrors({
          id,
          store,
          key: space.entry.key,
          mayTakeIn: (v: Version) => space.mayTakeIn(v),
          takeIn: (v: readonly Version[]) => space.takeIn(v),
          files: mirroredFiles(files, (listener) => this.fileKeeper.subscribe(id, listener)),
        });
        return space;
      })();
      this.#open.set(id, opening);
      opening.catch(() => this.#open.delete(id));
    }
    return opening;
  }

  readonly spaces = {
    /** Creates a space owned by this node's key, and opens it. */
    create: async (): Promise<SpaceInfo> => {
      this.#check();
      const id = randomId();
      await this.registry.putSpace({
        id,
        key: randomKey(),
        owner: this.did,
        added: this.clock.tick(),
      });
      await this.#space(id);
      await this.#sharing.update(id);
      return { id, owner: this.did };
    },
    /** Opens a known space; `unknown_space` otherwise. */
    open: async (id: string): Promise<SpaceInfo> => {
      const space = await this.#space(id);
      return { id, owner: space.entry.owner };
    },
    /** Closes an open space; records calls open it again. */
    close: async (id: string): Promise<void> => {
      const opening = this.#open.get(id);
      if (!opening) return;
      this.#open.delete(id);
      const space = await opening;
      await this.fileKeeper.closed(id);
      await this.#closeMirrors(id);
      await space.store.close();
    },
    /**
     * Pushes what the space's mirrors lack and pulls what they hold, now, rather than at the
     * next timer. Rejects with the first mirror's failure, after every mirror ran.
     */
    syncMirrors: async (id: string): Promise<void> => {
      await this.#syncSpace(id); // held without its key too
      await this.#mirrors.get(id)?.sync();
    },
    /** The ids of every space known here. */
    list: async (): Promise<string[]> => {
      this.#check();
      return (await this.registry.spaceIds()).sort();
    },
    status: async (id: string): Promise<SpaceStatus> => {
      const space = await this.#syncSpace(id);
      return {
        id,
        // A space held without its key has no owner this node could tell.
        owner: space instanceof OpenSpace ? space.entry.owner : '',
        fingerprint: space.store.fingerprint(),
        versions: space.store.versionCount(),
        collections: space.store.collectionNames(),
        problems: space.store.problems,
        peers: [...this.#peers].flatMap((p) => p.status(id) ?? []),
        mirrors: this.#mirrors.get(id)?.status() ?? [],
      };
    },
    /**
     * What another node needs to join space `id` as `did`: the space's id, key and owner, and
     * the owner's grant of `did`'s role, so the joiner knows its role before it first syncs.
     * It holds the space key: hand it over only to `did`, over a channel you trust.
     */
    share: async (id: string, did: string): Promise<SpaceTicket> => {
      const space = await this.#space(id);
      const grant = space.store
        .collection(MEMBER_COLLECTION)
        ?.records.get(did.replace(/^did:key:/, ''));
      const versions = await space.store.getVersions(grant?.versions.map((m) => m.id) ?? []);
      return {
        id,
        key: space.entry.key.slice(),
        owner: space.entry.owner,
        versions: versions.flatMap((v) => (v ? [v.bytes] : [])),
      };
    },
    /**
     * An invite to space `id` with `role`: a code to hand to one person over a channel you
     * trust (it holds the space key). It stays in the registry until someone uses it.
     */
    invite: async (id: string, options: { role?: Role } = {}): Promise<string> => {
      const space = await this.#space(id);
      const role = options.role ?? 'writer';
      const inviteKey = SigningKey.generate();
      const offer = await space.offer(inviteKey, role);
      await this.registry.putInvite({
        id: didRecordId(inviteKey.did),
        space: id,
        role,
        secret: inviteKey.exportSecret(),
      });
      // The holders the owner allows travel with the code: the joiner may meet only a host.
      const holderIds = [...(space.store.collection(HOLDER_COLLECTION)?.records.values() ?? [])]
        .flatMap((record) => record.versions.map((m) => m.id))
        .slice(0, MAX_INVITE_HOLDERS);
      const holders = (await space.store.getVersions(holderIds)).flatMap((v) =>
        v && v.author === space.entry.owner ? [v.bytes] : [],
      );
      return encodeInvite({
        space: id,
        key: space.entry.key,
        owner: space.entry.owner,
        secret: inviteKey.exportSecret(),
        offer: offer.bytes,
        holders,
      });
    },
    /** This node's invites to space `id` that nobody has used yet. */
    invites: async (id: string): Promise<Array<{ id: string; role: string }>> => {
      const space = await this.#space(id);
      const unused: Array<{ id: string; role: string }> = [];
      for (const invite of await this.registry.invites(id)) {
        if (space.store.collection(ACCEPT_COLLECTION)?.records.has(invite.id))
          await this.registry.deleteInvite(invite.id);
        else unused.push({ id: invite.id, role: invite.role });
      }
      return unused;
    },
    /** Joins with an invite code (from `invite`) or a {@link SpaceTicket}, and opens the space. */
    join: async (ticket: SpaceTicket | string): Promise<SpaceInfo> => {
      this.#check();
      if (typeof ticket === 'string') return this.#acceptInvite(ticket);
      const { id, key, owner } = ticket;
      if (
        !SPACE_ID.test(id) ||
        !(key instanceof Uint8Array) ||
        key.length !== 32 ||
        typeof owner !== 'string'
      ) {
        throw new MincaError(
          'invalid_input',
          'a space ticket needs the space id, its 32-byte key and its owner',
        );
      }
      const versions = await Promise.all(ticket.versions.map(decodeVerifiedVersion));
      if (versions.some((v) => v.space !== id || v.collection !== MEMBER_COLLECTION)) {
        throw new MincaError('invalid_input', 'a space ticket holds only grants of its own space');
      }
      if (!(await this.registry.getSpace(id)))
        await this.registry.putSpace({ id, key, owner, added: this.clock.tick() });
      const space = await this.#space(id);
      await space.takeIn(versions);
      await this.#sharing.update(id);
      return { id, owner: space.entry.owner };
    },
    /**
     * Lets the host or carrier `did` hold space `id` without its key (a `sys.holder` record):
     * members then name the space to it and prove they hold it (spec 05 §7.3). Owner only.
     */
    allowHolder: async (id: string, did: string, kind: HolderKind = 'host'): Promise<void> => {
      const space = await this.#space(id);
      if (space.entry.owner !== this.did)
        throw new MincaError('not_authorized', 'only the space owner allows holders');
      if (kind !== 'host' && kind !== 'carrier')
        throw new MincaError('invalid_input', 'a holder is a host or a carrier');
      await space.setHolder(did, kind);
    },
    /** No longer lets `did` hold space `id`: members stop naming it there. Owner only. */
    removeHolder: async (id: string, did: string): Promise<void> => {
      const space = await this.#space(id);
      if (space.entry.owner !== this.did)
        throw new MincaError('not_authorized', 'only the space owner removes holders');
      await space.setHolder(did, undefined);
    },
    /**
     * The spaces this node holds without their key (a host's or carrier's), with what each
     * holds. It opens each one to count, so list them once in a while, not per request.
     */
    held: async (): Promise<HeldSpaceInfo[]> => {
      this.#check();
      const out: HeldSpaceInfo[] = [];
      for (const id of (await this.registry.heldIds()).sort()) {
        const entry = await this.registry.getHeld(id);
        if (!entry) continue;
        const space = await this.#heldSpace(entry);
        const { access, offeredBy, added } = entry;
        out.push({
          id,
          access,
          offeredBy,
          added,
          versions: space.store.versionCount(),
          bytes: space.heldBytes,
        });
      }
      return out;
    },
    /**
     * Stops holding space `id` (held without its key): forgets it in the registry and closes it.
     * Its versions stay in the store; a peer offering it again goes through `acceptSpace` anew.
     */
    release: async (id: string): Promise<void> => {
      this.#check();
      if (!(await this.registry.getHeld(id)))
        throw new MincaError('unknown_space', `space ${id} is not held here`);
      await this.registry.deleteHeld(id);
      const opening = this.#held.get(id);
      this.#held.delete(id);
      const space = await opening?.catch(() => undefined);
      if (space) await this.fileKeeper.closed(id);
      await this.#closeMirrors(id);
      await space?.store.close();
    },
    /** Grants `did` a role in the space. Only the owner's grants count. */
    setRole: async (id: string, did: string, role: Role): Promise<void> => {
      const space = await this.#space(id);
      if (space.entry.owner !== this.did) {
        throw new MincaError('not_authorized', 'only the space owner grants roles');
      }
      await space.setRole(did, role);
    },
  };

  async #acceptInvite(code: string): Promise<SpaceInfo> {
    const invite = decodeInvite(code);
    const offer = await decodeVerifiedVersion(invite.offer);
    if (
      offer.space !== invite.space ||
      offer.author !== invite.owner ||
      offer.collection !== 'sys.invite'
    ) {
      throw new MincaError('invalid_input', 'the invite code does not hold its own offer');
    }
    const holders = await Promise.all((invite.holders ?? []).map(decodeVerifiedVersion));
    if (
      holders.some(
        (v) =>
          v.space !== invite.space ||
          v.author !== invite.owner ||
          v.collection !== HOLDER_COLLECTION,
      )
    ) {
      throw new MincaError(
        'invalid_input',
        "the invite code holds versions not of its owner's holders",
      );
    }
    // Checked before anything is kept, so a bad code leaves no trace.
    const inviteKey = SigningKey.fromSecret(invite.secret);
    if (offer.record !== didRecordId(inviteKey.did)) {
      throw new MincaError('not_authorized', 'the invite key does not match the offer');
    }
    try {
      openBody(offer, invite.key);
    } catch (cause) {
      throw new MincaError('invalid_input', 'the invite offer does not open under the space key', {
        cause,
      });
    }
    if (!(await this.registry.getSpace(invite.space))) {
      await this.registry.putSpace({
        id: invite.space,
        key: invite.key,
        owner: invite.owner,
        added: this.clock.tick(),
      });
    }
    const space = await this.#space(invite.space);
    await space.takeIn([offer, ...holders]);
    await space.accept(inviteKey);
    await this.#sharing.update(space.id);
    return { id: space.id, owner: space.entry.owner };
  }

  /** Starts the node's mirrors of an open or held space, if it has any. */
  async #startMirrors(space: MirroredSpace): Promise<void> {
    const { mirrors, onError } = this.mirrorConfig;
    if (mirrors.length === 0) return;
    this.#mirrors.set(
      space.id,
      await SpaceMirrors.start(space, this.stores, mirrors, onError, this.now),
    );
  }

  /** Pushes what is left to the space's mirrors, and stops them. */
  async #closeMirrors(id: string): Promise<void> {
    const mirrors = this.#mirrors.get(id);
    this.#mirrors.delete(id);
    await mirrors?.close();
  }

  readonly records = {
    /**
     * Writes a record: a new one, or a new version of `options.id` superseding its heads.
     * `collection` is an app's, such as `app.post`; `sys.*` is the space's own.
     */
    put: async <T extends BodyValue>(
      spaceId: string,
      collection: string,
      body: T,
      options: { id?: string } = {},
    ): Promise<MincaRecord<T>> => {
      const space = await this.#space(spaceId);
      if (isSystemCollection(collection)) {
        throw new MincaError(
          'invalid_name',
          `collection ${collection} is the space's own; apps write outside sys.*`,
        );
      }
      if (body === null || body === undefined) {
        throw new MincaError('invalid_input', 'a record body cannot be null; use records.delete');
      }
      return (await space.put(collection, body, options.id)) as MincaRecord<T>;
    },
    /** The record as it stands, or `undefined`. */
    get: async <T extends BodyValue = BodyValue>(
      spaceId: string,
      collection: string,
      id: string,
    ): Promise<MincaRecord<T> | undefined> => {
      const space = await this.#space(spaceId);
      return (await space.get(collection, id)) as MincaRecord<T> | undefined;
    },
    /** The records of a collection that stand. */
    list: async <T extends BodyValue = BodyValue>(
      spaceId: string,
      collection: string,
      options?: ListOptions,
    ): Promise<Array<MincaRecord<T>>> => {
      const space = await this.#space(spaceId);
      return (await space.list(collection, options)) as Array<MincaRecord<T>>;
    },
    /** Deletes a record (a tombstone version). False when it did not stand. */
    delete: async (spaceId: string, collection: string, id: string): Promise<boolean> => {
      const space = await this.#space(spaceId);
      if (isSystemCollection(collection)) {
        throw new MincaError('invalid_name', `collection ${collection} is the space's own`);
      }
      return space.delete(collection, id);
    },
    /**
     * Seals `bytes` under a fresh key in 256 KiB chunks, kept in the space's store, and returns
     * the {@link FileRef} to put anywhere in a record body. A body names at most 16 files.
     */
    addFile: async (
      spaceId: string,
      bytes: Uint8Array,
      options: AddFileOptions = {},
    ): Promise<FileRef> => {
      const space = await this.#space(spaceId);
      return (await this.fileKeeper.of(space)).add(bytes, options);
    },
    /**
     * The bytes of a file a record here names: from this node, else from connected peers one
     * after another, else from the node's other sources (mirrors), checking every chunk. When
     * nobody has it, it waits, asking again when records change, a peer connects, and every
     * 15 s. Rejects `invalid_input` for a file no record here names or one that won't open as
     * named, `closed` when the space closes, `aborted` on `signal`.
     */
    readFile: async (
      spaceId: string,
      ref: FileRef,
      options: ReadFileOptions = {},
    ): Promise<Uint8Array> => {
      const space = await this.#space(spaceId);
      return (await this.fileKeeper.of(space)).read(ref, options);
    },
    /** Calls `listener` after each change to the space's records. Returns the unsubscribe. */
    subscribe: async (
      spaceId: string,
      listener: (change: SpaceChange) => void,
    ): Promise<() => void> => {
      const space = await this.#space(spaceId);
      return space.subscribe(listener);
    },
  };

  /**
   * How much of each space's files this device fetches ahead (`ahead`, 5 MiB by default) and
   * keeps (`keep`, 256 MiB), Infinity allowed. Kept in memory only: give them at each start.
   * They reach every open space within a second.
   */
  async setFileLimits(limits: Partial<FileLimits>): Promise<void> {
    this.#check();
    this.fileKeeper.setLimits(limits);
  }

  /** Files as stores and mirrors see them: sealed bytes, checked against their ids. */
  readonly files = {
    /** Adds sources tried after peers, such as mirrors. Returns the removal. */
    addSources: (provider: FileSourceProvider): (() => void) =>
      this.fileKeeper.addSources(provider),
    /** Ids of the files held whole in the space (one held without its key too). */
    whole: async (spaceId: string): Promise<string[]> => {
      const space = await this.#syncSpace(spaceId); // held without its key too
      return (await this.fileKeeper.of(space)).whole();
    },
    /** Ids of the files the space's standing records name. */
    named: async (spaceId: string): Promise<string[]> => {
      const space = await this.#syncSpace(spaceId); // held without its key too
      return [...(await (await this.fileKeeper.of(space)).named())];
    },
    /** A file's chunk list as stored, if held. */
    list: async (spaceId: string, id: string): Promise<Uint8Array | undefined> => {
      const space = await this.#syncSpace(spaceId); // held without its key too
      return (await this.fileKeeper.of(space)).files.get(id)?.list?.bytes;
    },
    /** Sealed chunk `n` of a file, if held. */
    chunk: async (spaceId: string, id: string, n: number): Promise<Uint8Array | undefined> => {
      const space = await this.#syncSpace(spaceId); // held without its key too
      return (await this.fileKeeper.of(space)).files.chunk(id, n);
    },
    /** Calls `listener` when the files held whole or named in the space may have changed. */
    subscribe: (spaceId: string, listener: (change: { space: string }) => void): (() => void) =>
      this.fileKeeper.subscribe(spaceId, listener),
  };

  /**
   * Reads the registry and the open spaces' stores again (all of them, or those of `spaceIds`),
   * after another process wrote them: a data folder's daemon finds a command's writes so
   * (spec 05 §14.7). Listeners hear of records that changed.
   */
  async invalidate(spaceIds?: readonly string[]): Promise<void> {
    this.#check();
    await this.registry.invalidate();
    for (const [id, opening] of this.#open) {
      if (spaceIds && !spaceIds.includes(id)) continue;
      const space = await opening.catch(() => undefined);
      await space?.reload();
      if (space) await this.fileKeeper.reloaded(id);
    }
  }

  /** Closes every open space and the registry's store (not the store factory, which is yours). */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#sharing.idle();
    this.#closed = true;
    for (const peer of [...this.#peers]) peer.close('the node closed');
    const open = [...this.#open.values(), ...this.#held.values()];
    this.#open.clear();
    this.#held.clear();
    for (const opening of open) {
      const space = await opening.catch(() => undefined);
      if (!space) continue;
      await this.fileKeeper.closed(space.id);
      await this.#closeMirrors(space.id);
      await space.store.close();
    }
    // The factory is the caller's: it may open other nodes' stores too, so it stays open.
    await this.registry.close();
  }
}
