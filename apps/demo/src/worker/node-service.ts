/**
 * One account's node, as a worker runs it for its tabs: IndexedDB stores, a connection to the
 * host kept up while online, and the calls of {@link NodeApi}. Tabs never touch the node itself.
 */
import {
  type BodyValue,
  createNode,
  keepConnectedToAny,
  MincaError,
  type MincaNode,
  type SigningKey,
  type StoreFactory,
  type WebSocketLike,
} from '@minca/core';
import { browserDataFolderStores, rememberedDataFolder } from '@minca/folder';
import { indexedDBStores } from '@minca/idb';
import {
  type Account,
  accountKey,
  dataPath,
  folderLocalKey,
  listAccounts,
  storesPrefix,
} from '../accounts.js';
import type {
  EventMessage,
  FileLimitsView,
  HostConfig,
  ImageView,
  Invite,
  NewPhoto,
  NodeApi,
  Opened,
  OpenRequest,
  PostView,
  ProfileView,
  SpaceView,
  SyncView,
} from '../protocol.js';
import { letHostHold, subscribe } from './host-hold.js';
import {
  ABOUT_ID,
  imageBody,
  POSTS,
  PROFILES,
  photoFile,
  SPACE_ABOUT,
  toPost,
  toProfile,
} from './views.js';

/** How often the sync state is looked at, so tabs hear of a change within this, ms. */
const SYNC_POLL_MS = 250;

export class NodeService implements NodeApi {
  #node: MincaNode | undefined;
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
    const key = await accountKey(account);
    const about = (await listAccounts()).find((a) => a.id === account);
    if (!key || !about) {
      throw new MincaError('unknown_space', `account ${account} is not in this browser`);
    }
    this.#node = await createNode({ stores: await this.#stores(about, key), key });
    this.#host = host;
    this.#online = online ?? true;
    // The node keeps no limits: they come from the tab at every start.
    if (limits) await this.#node.setFileLimits(limits);
    // Local data first: the connection starts now, and nothing waits for it.
    this.#reconnect();
    this.#poll = setInterval(() => void this.#pollSync(), SYNC_POLL_MS);
    return { did: key.did, instance: crypto.randomUUID() };
  }

  /** IndexedDB, or the data folder the person picked (its handle remembered by the page). */
  async #stores(account: Account, key: SigningKey): Promise<StoreFactory> {
    if (account.storage !== 'folder') return indexedDBStores(storesPrefix(account.id));
    const remembered = await rememberedDataFolder();
    if (remembered?.permission !== 'granted') {
      throw new MincaError('not_authorized', 'the data folder needs your permission: allow it');
    }
    return browserDataFolderStores({
      dataPath: dataPath(account.id),
      folder: remembered.handle,
      localKey: await folderLocalKey(key.exportSecret()),
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
    const name = (about?.body as { name?: unknown } | undefined)?.name;
    return { id, owner, name: typeof name === 'string' ? name.slice(0, 80) : 'A space' };
  }

  async spaces(): Promise<SpaceView[]> {
    const ids = await this.#n.spaces.list();
    return Promise.all(ids.map((id) => this.#view(id)));
  }

  async createSpace(name: string): Promise<SpaceView> {
    const { id } = await this.#n.spaces.create();
    await this.#n.records.put(
      id,
      SPACE_ABOUT,
      { name: name.trim() || 'A space' },
      { id: ABOUT_ID },
    );
    if (this.#host) await letHostHold(this.#n, this.#host, id).catch(() => undefined);
    return this.#view(id);
  }

  async invite(space: string): Promise<Invite> {
    // The owner's sys.holder versions travel in the code (spec 05 §7.2): a joiner names the
    // space to the host before it ever met the owner.
    if (this.#host) await letHostHold(this.#n, this.#host, space).catch(() => undefined);
    return { code: await this.#n.spaces.invite(space, { role: 'writer' }) };
  }

  async join(code: string, _host: string | undefined): Promise<SpaceView> {
    const { id } = await this.#n.spaces.join(code.trim());
    return this.#view(id);
  }

  async posts(space: string, limit: number): Promise<PostView[]> {
    await this.#watch(space);
    const [records, whole] = await Promise.all([
      this.#n.records.list(space, POSTS, { order: 'newest', limit }),
      this.#n.files.whole(space),
    ]);
    const held = new Set(whole);
    return records.flatMap((r) => toPost(r, held) ?? []);
  }

  async post(space: string, text: string, photo: NewPhoto | undefined): Promise<PostView> {
    let body: BodyValue = { text };
    if (photo) {
      // As the product page shows: addFile, then put the FileRef in the body.
      const file = await this.#n.records.addFile(space, photo.bytes, {
        mime: photo.image.mime,
        name: photo.name,
      });
      body = { text, photo: { ...imageBody(photo.image), file } };
    }
    const record = await this.#n.records.put(space, POSTS, body);
    return toPost(record, new Set(await this.#n.files.whole(space)))!;
  }

  async readPhoto(space: string, post: string): Promise<Uint8Array> {
    const record = await this.#n.records.get(space, POSTS, post);
    const ref = record && photoFile(record);
    if (!ref) throw new MincaError('invalid_input', `post ${post} has no photo file`);
    return this.#n.records.readFile(space, ref, {
      onProgress: ({ done, total }) =>
        this.emit({ event: 'progress', space, file: ref.$file, done, total }),
    });
  }

  async setFileLimits(limits: FileLimitsView): Promise<void> {
    await this.#n.setFileLimits(limits);
  }

  async profiles(space: string): Promise<ProfileView[]> {
    await this.#watch(space);
    const records = await this.#n.records.list(space, PROFILES);
    return records.flatMap((r) => toProfile(r) ?? []);
  }

  async setProfile(space: string, name: string, avatar: ImageView | undefined): Promise<void> {
    const body: BodyValue = avatar
      ? { name: name.trim(), avatar: imageBody(avatar) }
      : { name: name.trim() };
    await this.#n.records.put(space, PROFILES, body, { id: this.#n.did.slice('did:key:'.length) });
  }

  async sync(space: string): Promise<SyncView> {
    const status = await this.#n.spaces.status(space);
    return {
      online: this.#online,
      connected: this.#connected > 0,
      peers: status.peers.map(({ did, synced, level }) => ({ did, synced, level })),
    };
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
  }
}
