/**
 * The node: what an app holds. It opens spaces from its stores, reads and writes records, and
 * syncs with peers and mirrors. `createNode` is the entry point; {@link MincaNode} is a facade
 * over the modules in `node/`, each with one job.
 */
import type { MirrorConfig, StoreFactory } from './adapter.js';
import type { BlobStore } from './blob-store.js';
import { HybridClock } from './clock.js';
import { ChunkShelf, type FileChunksConfig } from './files/chunk-shelf.js';
import type { FileLimits } from './files/limits.js';
import { NodeFiles } from './files/node-files.js';
import type { HoldingPolicy } from './hosting/holding-policy.js';
import { verifyChain, type WriterIdentity } from './identity/writer-chain.js';
import { checkPlatformCrypto, type PlatformCrypto, type SigningKey } from './keys.js';
import { MirrorFileSource } from './mirror/mirror-files.js';
import { type MirrorErrorListener, resolveMirrors } from './mirror/space-mirrors.js';
import { isSystemCollection } from './names.js';
import { type FilesApi, filesApi } from './node/files-api.js';
import { Holding } from './node/holding.js';
import { Invites } from './node/invites.js';
import { NodeMirrors } from './node/node-mirrors.js';
import { OpenSpaces, type SpaceHooks } from './node/open-spaces.js';
import { openStore, REGISTRY_PATH } from './node/open-store.js';
import { Peers } from './node/peers.js';
import { type RecordsApi, recordsApi } from './node/records-api.js';
import { ReuseWatch } from './node/reuse-watch.js';
import type { OpenSpacesOptions } from './node/space-use.js';
import { type SpacesApi, spacesApi } from './node/spaces-api.js';
import { usePlatformVerify } from './platform-verify.js';
import { checkOpenMany, checkOpenSaltedMany, checkSealMany, usePrimitives } from './primitives.js';
import { Registry } from './registry.js';
import { SharingIndex } from './sharing-index.js';
import { credentials, rewrapKeys, rotateAfterRevocations } from './space/member-records.js';
import { OpenSpace } from './space/open-space.js';
import type { Peer } from './sync/peer.js';
import type { Transport } from './sync/transport.js';

export type { HeldSpaceInfo } from './node/holding.js';
export type { SpaceInfo, SpaceTicket } from './node/invites.js';
export type { OpenSpacesStats } from './node/open-spaces.js';
export type { ReusedInvite } from './node/reuse-watch.js';
export type { OpenSpacesOptions } from './node/space-use.js';
export type { SpaceStatus, WriterInfo } from './node/spaces-api.js';
export type { FilesApi, RecordsApi, SpacesApi };

export interface NodeConfig {
  /** Where the node keeps its stores: `registry`, and `spaces/<id>` per space. */
  stores: StoreFactory;
  /**
   * The writer key the node signs with (spec 05 §6). Without one, the node makes one and keeps
   * it in its registry; where the registry lives in a folder others copy (a data folder), pass
   * one kept in this device's own state.
   */
  key?: SigningKey;
  /**
   * The certificates that make `key` write for an account: the account root's writer
   * certificate, or its device certificate and that device's writer certificate. Without them
   * the key is its own account.
   */
  certificates?: readonly Uint8Array[];
  /**
   * The platform's own cryptography, for what WebCrypto does slowly: in Node and Bun,
   * `nodeCrypto(await import('node:crypto'))` signs a put about four times as fast, and hashes
   * and seals natively. Checked at start to sign exactly as RFC 8032 does and to hash and seal
   * as @noble does; WebCrypto (or @noble/curves) and @noble otherwise. Its SHA-256 and
   * ChaCha20-Poly1305 are then used process-wide (they give the same bytes).
   */
  crypto?: PlatformCrypto;
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
   * Keeps file chunks beside the database, in a blob store of their own (a folder on disk),
   * rather than as entries of each space's store; past `budget`, files the node's mirrors hold
   * leave it and are read back from them when needed (spec 05 §16.6.4).
   */
  fileChunks?: FileChunksConfig;
  /**
   * Makes this node a holder (a host or carrier, spec 05 §7.3): it keeps spaces peers offer it
   * without their key, as the policy allows. Members name a space to it once the owner lets
   * its DID hold it (`spaces.allowHolder`).
   */
  holding?: HoldingPolicy;
  /**
   * How long a space nothing uses stays open (`idleMs`, 5 minutes) and how many stay open at
   * most (`max`, 1,000; past it the least recently used idle one closes). A closed space opens
   * again for the next call or a peer's message; nothing written is lost (spec 06 §4.1).
   */
  openSpaces?: OpenSpacesOptions;
}

/** Opens a node over its stores. */
export async function createNode(config: NodeConfig): Promise<MincaNode> {
  const registry = new Registry(await openStore(config.stores, REGISTRY_PATH));
  let key = config.key ?? (await registry.nodeKey());
  if (config.crypto) {
    await checkPlatformCrypto(config.crypto);
    // Its hashing and sealing, for the whole process: the same bytes, checked, made faster.
    await checkOpenMany(config.crypto);
    await checkSealMany(config.crypto);
    await checkOpenSaltedMany(config.crypto);
    usePrimitives(config.crypto);
    await usePlatformVerify(config.crypto);
    key = key.signingWith(config.crypto);
  }
  const identity = await verifyChain(key.did, config.certificates ?? []);
  return new MincaNode(config, registry, key, identity);
}

export class MincaNode {
  /** Spaces: making, opening, sharing and closing them, and what each stands at. */
  readonly spaces: SpacesApi;
  /** Records and their files. */
  readonly records: RecordsApi;
  /** Files as stores and mirrors see them: sealed bytes, checked against their ids. */
  readonly files: FilesApi;
  readonly #registry: Registry;
  readonly #key: SigningKey;
  readonly #identity: WriterIdentity;
  readonly #open: OpenSpaces;
  readonly #peers: Peers;
  readonly #files: NodeFiles;
  readonly #sharing: SharingIndex;
  readonly #clock: HybridClock;
  #closed = false;

  /** @internal Use {@link createNode}. */
  constructor(config: NodeConfig, registry: Registry, key: SigningKey, identity: WriterIdentity) {
    const now = config.now ?? Date.now;
    const clock = new HybridClock(config.now);
    this.#clock = clock;
    this.#registry = registry;
    this.#key = key;
    this.#identity = identity;
    const resolved = resolveMirrors(config.stores.mirrors, config.mirrors);
    const mirrors = new NodeMirrors(config.stores, resolved, config.onMirrorError, now);
    // Chunks come back from an open space's mirrors (which remember who holds what), else
    // from the same mirrors read afresh.
    const bucket = (space: string) => {
      const open = mirrors.fileSources(space);
      if (open.length > 0) return open;
      return resolved.map((m, i) => new MirrorFileSource(m.store, space, i));
    };
    const shelf = config.fileChunks && new ChunkShelf(config.fileChunks, bucket, now);
    const files = new NodeFiles(now, config.fetchFiles === 'all', shelf);
    // readFile falls back to a space's mirrors after its peers.
    files.addSources((id) => mirrors.fileSources(id));
    const sharing = new SharingIndex(registry, async (id) => (await open.member(id)).sharers(), {
      account: identity.account,
      now: async (id) => {
        const space = await open.member(id);
        return {
          shown: (await credentials(space, identity.account)).map((v) => v.bytes),
          holders: await space.holders(),
        };
      },
    });
    let peers: Peers | undefined;
    /** What a change to sys.* may teach: invites used twice, revocations to remember. */
    const reuses = new ReuseWatch(identity.account);
    // One pass per space at a time, so two changes to sys.* can't both change the key.
    const learning = new Map<string, Promise<void>>();
    const learnFromSystem = (space: OpenSpace): Promise<void> => {
      const next = (learning.get(space.id) ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => learnOnce(space));
      learning.set(space.id, next);
      return next;
    };
    const learnOnce = async (space: OpenSpace) => {
      // It may write (keys rewrapped, changed): the space stays open until it is done.
      const release = open.keepOpen(space.id);
      try {
        await learnFrom(space);
      } finally {
        release();
      }
    };
    const learnFrom = async (space: OpenSpace) => {
      await reuses.changed(space);
      if (space.owner === identity.account) {
        // A member whose acceptance came after a key change gets the key, from the owner; a
        // revoked device or writer of a member can't read what follows.
        await rewrapKeys(space);
        const rotated = await rotateAfterRevocations(space);
        if (rotated) await registry.putSpace(rotated);
      }
      for (const [subject, { statement }] of (await space.membership()).revocations())
        await registry.putRevoked(subject, statement);
    };
    const hooks: SpaceHooks = {
      opened: async (space) => {
        if (space instanceof OpenSpace) {
          space.onKeys((entry) => registry.putSpace(entry));
          space.onSharingChange(() => {
            sharing.dirty(space.id);
            void learnFromSystem(space).catch(() => undefined);
          });
          // Read again on every open, so an index update lost to a crash heals.
          sharing.dirty(space.id);
          await space.refreshKeys();
          await learnFromSystem(space);
        }
        // Whatever changed here, peers and mirrors hear of it soon; a change to sys.* may
        // give someone a role, so the space may now be shared with more peers.
        space.subscribe((change) => {
          const membership =
            space instanceof OpenSpace && change.collections.some(isSystemCollection);
          peers?.changed(space.id, membership);
          mirrors.changed(space.id);
        });
        // A holder keeps the files the versions' clear `f` names (with `fetchFiles: 'all'`).
        await mirrors.start(space, await files.opened(space));
      },
      closing: async (id) => {
        // First, before anything awaits: no peer's message reaches the space after this.
        peers?.closing(id);
        await files.closed(id);
        await mirrors.close(id);
      },
      busy: (id) => (files.inUse(id) ? 'pinned' : peers?.busy(id)),
    };
    const open = new OpenSpaces({
      stores: config.stores,
      registry,
      clock,
      key,
      identity,
      holding: config.holding,
      hooks,
      now,
      ...(config.openSpaces ? { limits: config.openSpaces } : {}),
    });
    const holding = new Holding(registry, open, config.holding ?? {}, now, () =>
      peers?.heldChanged(),
    );
    peers = new Peers({
      key,
      identity,
      now,
      registry,
      spaces: open,
      sharing,
      files,
      admit: config.holding ? (did, offered) => holding.admit(did, offered) : undefined,
    });
    this.#open = open;
    this.#peers = peers;
    this.#files = files;
    this.#sharing = sharing;
    this.spaces = spacesApi({
      did: identity.account,
      clock,
      registry,
      spaces: open,
      sharing,
      peers,
      mirrors,
      invites: new Invites(registry, open, sharing, clock),
      holding,
      reuses,
      learnFromSystem,
    });
    this.records = recordsApi(open, files);
    this.files = filesApi(open, files);
  }

  /** The account this node writes for: the DID roles are granted to (spec 05 §6). */
  get did(): string {
    return this.#identity.account;
  }

  /**
   * A timestamp later than every one this node gave or saw, ms (its hybrid clock, spec 05 §3.5):
   * what to date a revocation with, so nothing this node already saw falls after it.
   */
  time(): number {
    return this.#clock.tick();
  }

  /** The DID of the writer key this node signs with; its account's when it has no certificates. */
  get writer(): string {
    return this.#key.did;
  }

  /**
   * Syncs with the peer at the other end of `transport`: every space both hold and may share.
   * The connection lasts until either side closes it; a peer that breaks the protocol is cut
   * off with a reason (`peer.endReason`), and the node goes on.
   */
  connect(transport: Transport): Peer {
    this.#open.check();
    return this.#peers.connect(transport, (peer) => this.#files.peerEnded(peer.files));
  }

  /**
   * How much of each space's files this device fetches ahead (`ahead`, 5 MiB by default) and
   * keeps (`keep`, 256 MiB), Infinity allowed. Kept in memory only: give them at each start.
   * They reach every open space within a second.
   */
  async setFileLimits(limits: Partial<FileLimits>): Promise<void> {
    this.#open.check();
    this.#files.setLimits(limits);
  }

  /**
   * Reads the registry and the open spaces' stores again (all of them, or those of `spaceIds`),
   * after another process wrote them: a data folder's daemon finds a command's writes so
   * (spec 05 §14.7). Listeners hear of records that changed.
   */
  async invalidate(spaceIds?: readonly string[]): Promise<void> {
    this.#open.check();
    await this.#registry.invalidate();
    for (const space of await this.#open.openMembers(spaceIds)) {
      await space.reload();
      await this.#files.reloaded(space.id);
    }
  }

  /** Closes every open space and the registry's store (not the store factory, which is yours). */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#sharing.idle();
    this.#closed = true;
    this.#peers.closeAll('the node closed');
    await this.#open.closeAll();
    await this.#files.shelf?.close();
    // The factory is the caller's: it may open other nodes' stores too, so it stays open.
    await this.#registry.close();
  }
}
