/**
 * One account's node, as a worker runs it for its tabs: IndexedDB stores (or a data folder), a
 * connection to the host kept up while online, and the calls of {@link NodeApi}. Tabs never
 * touch the node itself.
 */
import {
  type BodyValue,
  createMessagePortTransport,
  createNode,
  type FileRef,
  keepConnectedToAny,
  type MessagePortLike,
  MincaError,
  type MincaNode,
  type StoreFactory,
  type WebSocketLike,
} from '@minca/core';
import { browserDataFolderStores, rememberedDataFolder } from '@minca/folder';
import { indexedDBStores } from '@minca/idb';
import {
  addImage,
  imageBody,
  listProfiles,
  PROFILES,
  type PreparedImage,
  profileId,
  writerAccounts,
} from '@minca/std';
import {
  type Account,
  dataPath,
  folderLocalKey,
  listAccounts,
  storesPrefix,
  updateAccount,
} from '../accounts.js';
import { nodeKeys, rootSigner } from '../device-keys.js';
import type {
  AppSpace,
  EventMessage,
  FileLimitsView,
  HostConfig,
  Invite,
  NewPhoto,
  NewVideo,
  NodeApi,
  Opened,
  OpenRequest,
  PostView,
  ProfileView,
  SpaceView,
  SyncView,
} from '../protocol.js';
import { approvedSpacesOnly } from './app-link.js';
import { openRange, type RangeFile } from './file-range.js';
import { forgetBrowserCopy } from './forget.js';
import { letHostHold, subscribe } from './host-hold.js';
import type { MediaOpener } from './media-port.js';
import { removedAccounts } from './members.js';
import { Outbox } from './outbox.js';
import { writeOwnProfile } from './own-profile.js';
import { videoBody } from './video-body.js';
import {
  ABOUT_ID,
  MAX_SPACE_NAME,
  POSTS,
  photoOf,
  readProfile,
  SPACE_ABOUT,
  spaceName,
  toPost,
  toProfile,
  videoOf,
} from './views.js';

/** How often the sync state is looked at, so tabs hear of a change within this, ms. */
const SYNC_POLL_MS = 250;

export class NodeService implements NodeApi, MediaOpener {
  #node: MincaNode | undefined;
  #stores: StoreFactory | undefined;
  #account: Account | undefined;
  #outbox: Outbox | undefined;
  #opening: Promise<Opened> | undefined;
  #host: HostConfig | undefined;
  #connection: { close(): void } | undefined;
  #connected = 0;
  #online = true;
  readonly #watched = new Set<string>();
  readonly #lastSync = new Map<string, string>();
  #poll: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly emit: (event: EventMessage) => void) {}

  open(request: OpenRequest): Promise<Opened> {
    this.#opening ??= this.#open(request);
    return this.#opening;
  }

  async #open({ account, host, online, limits }: OpenRequest): Promise<Opened> {
    const keys = await nodeKeys(account);
    const about = (await listAccounts()).find((a) => a.id === account);
    if (!keys || !about) {
      throw new MincaError('unknown_space', `account ${account} is not in this browser`);
    }
    this.#account = about;
    this.#outbox = new Outbox(account);
    // The node signs with its own writer key, tied to the account by the device's certificate.
    this.#stores = await this.#openStores(about);
    this.#node = await createNode({ stores: this.#stores, ...keys });
    this.#host = host;
    this.#online = online ?? true;
    // The node keeps no limits: they come from the tab at every start.
    if (limits) await this.#node.setFileLimits(limits);
    // Local data first: the connection starts now, and nothing waits for it.
    this.#reconnect();
    this.#poll = setInterval(() => void this.#pollSync(), SYNC_POLL_MS);
    return { did: this.#node.did, instance: crypto.randomUUID() };
  }

  /** IndexedDB, or the data folder the person picked (its handle remembered by the page). */
  async #openStores(account: Account): Promise<StoreFactory> {
    if (account.storage !== 'folder') return indexedDBStores(storesPrefix(account.id));
    const remembered = await rememberedDataFolder();
    if (remembered?.permission !== 'granted') {
      throw new MincaError('not_authorized', 'the data folder needs your permission: allow it');
    }
    return browserDataFolderStores({
      dataPath: dataPath(account.id),
      folder: remembered.handle,
      localKey: await folderLocalKey((await rootSigner(account.id))!),
      indexedDBStores,
    });
  }

  get #n(): MincaNode {
    if (!this.#node) throw new MincaError('closed', 'the node is not open yet');
    return this.#node;
  }

  #reconnect(): void {
    this.#connection?.close();
    this.#connection = undefined;
    const host = this.#host;
    if (!host || !this.#online) return;
    const node = this.#n;
    // The host keeps this account's spaces once it has a subscription: ask for one first.
    let closed = false;
    const start = () => (closed ? undefined : this.#connect(host, node));
    const connection = subscribe(host, node.did).then(start, start);
    this.#connection = {
      close: () => {
        closed = true;
        void connection.then((c) => c?.close());
      },
    };
  }

  #connect(host: HostConfig, node: MincaNode) {
    const urls = typeof host.sync === 'string' ? [host.sync] : host.sync;
    return keepConnectedToAny(
      urls,
      (url) => new WebSocket(url) as unknown as WebSocketLike,
      (transport) => {
        node.connect(transport);
        const closed = transport.onClose;
        this.#connected++;
        transport.onClose = (reason) => {
          this.#connected--;
          closed?.(reason);
        };
        void this.#holdOwnSpaces();
      },
      { maxDelayMs: 5_000 },
    );
  }

  /** The host holds every space this account owns, so others can sync through it. */
  async #holdOwnSpaces(): Promise<void> {
    const host = this.#host;
    if (!host) return;
    for (const id of await this.#n.spaces.list()) {
      const { owner } = await this.#n.spaces.open(id);
      if (owner === this.#n.did) await letHostHold(this.#n, host, id).catch(() => undefined);
    }
  }

  async #watch(space: string): Promise<void> {
    if (this.#watched.has(space)) return;
    this.#watched.add(space);
    await this.#n.records.subscribe(space, (change) =>
      this.emit({ event: 'changed', space, collections: change.collections }),
    );
    // A file fetched or dropped changes what a post can show at once.
    this.#n.files.subscribe(space, () => this.emit({ event: 'changed', space, collections: [] }));
    // A space joined or made before the account had its profile there gets it now.
    void this.#ownProfile(space);
  }

  async #ownProfile(space: string, changed = false): Promise<void> {
    if (!this.#account) return;
    // A reader may not write: its profile stays unwritten.
    await writeOwnProfile(this.#n, space, this.#account, changed).catch(() => undefined);
  }

  async #pollSync(): Promise<void> {
    for (const space of this.#watched) {
      const sync = await this.sync(space).catch(() => undefined);
      if (!sync) continue;
      const text = JSON.stringify(sync);
      if (this.#lastSync.get(space) === text) continue;
      this.#lastSync.set(space, text);
      this.emit({ event: 'sync', space, sync });
    }
  }

  async #view(id: string): Promise<SpaceView> {
    const { owner } = await this.#n.spaces.open(id);
    const about = await this.#n.records.get(id, SPACE_ABOUT, ABOUT_ID);
    return { id, owner, name: spaceName(about) };
  }

  async #whole(space: string): Promise<Set<string>> {
    return new Set(await this.#n.files.whole(space));
  }

  async spaces(): Promise<SpaceView[]> {
    const ids = await this.#n.spaces.list();
    return Promise.all(ids.map((id) => this.#view(id)));
  }

  async createSpace(name: string): Promise<SpaceView> {
    const { id } = await this.#n.spaces.create();
    const body = { name: name.trim().slice(0, MAX_SPACE_NAME) || 'A space' };
    await this.#n.records.put(id, SPACE_ABOUT, body, { id: ABOUT_ID });
    await this.#ownProfile(id);
    if (this.#host) await letHostHold(this.#n, this.#host, id).catch(() => undefined);
    return this.#view(id);
  }

  async invite(space: string): Promise<Invite> {
    // The owner's sys.holder versions travel in the code (spec 05 §7.2): a joiner names the
    // space to the host before it ever met the owner.
    if (this.#host) await letHostHold(this.#n, this.#host, space).catch(() => undefined);
    const code = await this.#n.spaces.invite(space, { role: 'writer' });
    const { name } = await this.#view(space);
    return {
      code,
      space: { id: space, name },
      from: { did: this.#n.did, name: this.#account?.name ?? '' },
    };
  }

  async join(code: string): Promise<SpaceView> {
    const { id } = await this.#n.spaces.join(code.trim());
    await this.#ownProfile(id);
    return this.#view(id);
  }

  async posts(space: string, limit: number): Promise<PostView[]> {
    await this.#watch(space);
    const [records, whole, accounts] = await Promise.all([
      this.#n.records.list(space, POSTS, { order: 'newest', limit }),
      this.#whole(space),
      writerAccounts(this.#n, space),
    ]);
    return records.flatMap((r) => toPost(r, whole, accounts) ?? []);
  }

  async post(
    space: string,
    text: string,
    photo: NewPhoto | undefined,
    video?: NewVideo,
  ): Promise<PostView> {
    if (!text.trim() && !photo && !video)
      throw new MincaError('invalid_input', 'a post has text, a photo or a video');
    if (photo && video) throw new MincaError('invalid_input', 'a post has a photo or a video');
    let body: BodyValue = { text };
    if (photo) {
      // As the product page shows: addFile, then put the FileRef in the body.
      const image = await addImage(this.#n, space, photo.image, photo.name);
      body = { text, photo: imageBody(image) };
    }
    if (video) body = { text, video: await this.#addVideo(space, video) };
    const record = await this.#n.records.put(space, POSTS, body);
    await this.#outbox?.wrote(space);
    // This node's writer writes for its account.
    return toPost(record, await this.#whole(space), new Map([[record.author, this.#n.did]]))!;
  }

  async #addVideo(space: string, video: NewVideo) {
    // Read a chunk at a time from the file the person picked: never whole in memory.
    const file = await this.#n.records.addFile(space, video.file, {
      mime: video.mime,
      name: video.name,
    });
    const poster = video.poster && (await addImage(this.#n, space, video.poster, 'poster.jpg'));
    const { mime, width, height, duration } = video;
    return videoBody(
      { mime, width, height, file, ...(duration !== undefined ? { duration } : {}) },
      poster && imageBody(poster),
    );
  }

  /** The video of post `post`, for the service worker's reads by range (media-port.ts). */
  async openMedia(space: string, post: string, file: string): Promise<RangeFile> {
    const record = await this.#n.records.get(space, POSTS, post);
    const video = record && videoOf(record);
    if (!video || video.file.$file !== file)
      throw new MincaError('invalid_input', 'there is no such video');
    return openRange(this.#n, space, video.file, video.mime);
  }

  async readPicture(
    space: string,
    of: { post: string; part: 'file' | 'thumbnail' | 'poster' } | { profile: string },
  ): Promise<Uint8Array> {
    let ref: FileRef | undefined;
    if ('post' in of) {
      const record = await this.#n.records.get(space, POSTS, of.post);
      const photo = record && (of.part === 'poster' ? videoOf(record)?.poster : photoOf(record));
      ref = of.part === 'thumbnail' ? photo?.thumbnail : photo?.file;
    } else {
      const record = await this.#n.records.get(space, PROFILES, profileId(of.profile));
      const accounts = await writerAccounts(this.#n, space);
      ref = record ? readProfile(record, accounts)?.avatar?.file : undefined;
    }
    if (!ref) throw new MincaError('invalid_input', 'there is no such picture');
    const file = ref.$file;
    return this.#n.records.readFile(space, ref, {
      onProgress: ({ done, total }) => this.emit({ event: 'progress', space, file, done, total }),
    });
  }

  async setFileLimits(limits: FileLimitsView): Promise<void> {
    await this.#n.setFileLimits(limits);
  }

  async profiles(space: string): Promise<ProfileView[]> {
    await this.#watch(space);
    const [profiles, whole, removed] = await Promise.all([
      listProfiles(this.#n, space),
      this.#whole(space),
      removedAccounts(this.#n, space),
    ]);
    // A removed person keeps their name on what they wrote before; People leaves them out.
    return [...profiles.values()].map((p) => ({
      ...toProfile(p, whole),
      ...(removed.has(p.did) ? { removed: true as const } : {}),
    }));
  }

  async removeMember(space: string, did: string): Promise<void> {
    await this.#n.spaces.removeMember(space, did);
  }

  async setProfile(name: string, avatar: PreparedImage | undefined): Promise<void> {
    const account = this.#account;
    if (!account) throw new MincaError('closed', 'the node is not open yet');
    this.#account = await updateAccount(account.id, { name, avatar });
    for (const space of await this.#n.spaces.list()) await this.#ownProfile(space, true);
  }

  async sync(space: string): Promise<SyncView> {
    const outbox = this.#outbox!;
    // Counted before the look: whatever is written after it is not taken as level.
    const written = await outbox.written(space);
    const status = await this.#n.spaces.status(space);
    const host = this.#host?.did;
    if (status.peers.some((p) => p.did === host && p.level)) await outbox.level(space, written);
    return {
      online: this.#online,
      connected: this.#connected > 0,
      ...(host ? { host } : {}),
      peers: status.peers.map(({ did, synced, level, refused }) => ({
        did,
        synced,
        level,
        ...(refused ? { refused } : {}),
      })),
      waiting: await outbox.waiting(space),
      // Only the owner made the invites, and can act on one used twice: until it removed all
      // but one of those who used it.
      reused: status.owner === this.#n.did ? await this.#reused(space, status.reusedInvites) : [],
    };
  }

  async #reused(space: string, reuses: ReadonlyArray<{ accounts: readonly string[] }>) {
    if (reuses.length === 0) return [];
    const removed = await removedAccounts(this.#n, space);
    return reuses
      .map(({ accounts }) => ({ accounts: accounts.filter((did) => !removed.has(did)) }))
      .filter(({ accounts }) => accounts.length > 1);
  }

  async setHost(host: HostConfig | undefined): Promise<void> {
    if (JSON.stringify(host) === JSON.stringify(this.#host)) return;
    this.#host = host;
    this.#reconnect();
  }

  async setOnline(online: boolean): Promise<void> {
    if (online === this.#online) return;
    this.#online = online;
    this.#reconnect();
  }

  async close(): Promise<void> {
    if (this.#poll) clearInterval(this.#poll);
    this.#connection?.close();
    await this.#node?.close();
    await this.#stores?.close?.();
  }

  async shareWithApp(spaces: string[]): Promise<AppSpace[]> {
    const out: AppSpace[] = [];
    for (const id of spaces) {
      const [ticket, view] = await Promise.all([
        this.#n.spaces.share(id, this.#n.did),
        this.#view(id),
      ]);
      out.push({ ticket, name: view.name });
    }
    return out;
  }

  async connectApp(port: MessagePort, spaces: string[]): Promise<void> {
    // Synced directly once, so the app has the space's own records (who may hold it among
    // them) and can go on through the host.
    const transport = createMessagePortTransport(port as unknown as MessagePortLike);
    this.#n.connect(approvedSpacesOnly(transport, new Set(spaces)));
  }

  async revoke(statement: Uint8Array): Promise<void> {
    await this.#n.spaces.revoke(statement);
  }

  async forget(): Promise<string[]> {
    const account = this.#account;
    if (!account) throw new MincaError('closed', 'the node is not open yet');
    await this.close();
    return forgetBrowserCopy(account.id);
  }
}
