/**
 * What a tab and the node's worker say to each other over a MessagePort: calls with answers,
 * and events the worker sends every tab. Everything here survives structured cloning.
 */

/** A picture as a record holds it (`std.image`'s shape): its size and a small thumbnail. */
export interface ImageView {
  mime: string;
  width: number;
  height: number;
  /** A JPEG of at most {@link THUMBNAIL_EDGE} px on its long side, inside the body. */
  thumbnail: Uint8Array;
}

/** A post's photo: its thumbnail in the body, the picture itself in a file. */
export interface PhotoView extends ImageView {
  file?: {
    id: string;
    size: number;
    /** Held whole on this device: reading it needs no network. */
    whole: boolean;
  };
}

export interface PostView {
  id: string;
  author: string;
  /** The winning version's timestamp, ms. */
  at: number;
  text: string;
  photo?: PhotoView;
}

/** A photo to post: the picture's bytes go in a file, its thumbnail in the body. */
export interface NewPhoto {
  image: ImageView;
  bytes: Uint8Array;
  name: string;
}

/** The device's file limits, bytes per space (Infinity allowed): see `node.setFileLimits`. */
export interface FileLimitsView {
  ahead: number;
  keep: number;
}

export interface ProfileView {
  did: string;
  name: string;
  avatar?: ImageView;
}

export interface SpaceView {
  id: string;
  name: string;
  owner: string;
}

/** How this node stands with one peer in one space. */
export interface PeerView {
  did: string;
  synced: boolean;
  level: boolean;
}

/** What the worker tells every tab about the node and one space. */
export interface SyncView {
  /** The tabs said the browser is online, and the person did not choose to work offline. */
  online: boolean;
  /** A connection to the host is open. */
  connected: boolean;
  peers: PeerView[];
}

/** Where the host is: served by the demo server as /config.json. */
export interface HostConfig {
  /**
   * The host's WebSocket URL; or the URLs of a fleet's hosts, any of which serves the account:
   * the node uses one, and moves to the next when it fails.
   */
  sync: string | string[];
  /** The host's DID: a space's owner lets it hold the space (`spaces.allowHolder`). */
  did: string;
  /** Where the demo's server takes an account's DID, to let it keep spaces on the host. */
  subscribe: string;
}

/** What opens a node: the account, and where its host is. */
export interface OpenRequest {
  account: string;
  host: HostConfig | undefined;
  online?: boolean;
  limits?: FileLimitsView;
}

/**
 * An invite: the code (which carries the owner's `sys.holder` records, so the joiner knows the
 * host). `host` was the reader host's grant in older links; it is read and ignored.
 */
export interface Invite {
  code: string;
  host?: string;
}

export interface Opened {
  did: string;
  instance: string;
}

export interface NodeApi {
  /** `instance` names this run of the node: tabs sharing one node see the same. */
  open(request: OpenRequest): Promise<Opened>;
  spaces(): Promise<SpaceView[]>;
  createSpace(name: string): Promise<SpaceView>;
  invite(space: string): Promise<Invite>;
  /** `host`: the invite link's host part, see {@link Invite}. */
  join(code: string, host: string | undefined): Promise<SpaceView>;
  posts(space: string, limit: number): Promise<PostView[]>;
  post(space: string, text: string, photo: NewPhoto | undefined): Promise<PostView>;
  /** The bytes of a post's photo, fetched from peers when not here (progress events). */
  readPhoto(space: string, post: string): Promise<Uint8Array>;
  setFileLimits(limits: FileLimitsView): Promise<void>;
  profiles(space: string): Promise<ProfileView[]>;
  setProfile(space: string, name: string, avatar: ImageView | undefined): Promise<void>;
  sync(space: string): Promise<SyncView>;
  /** The tab's view of the network: the browser's online state and the person's choice. */
  setOnline(online: boolean): Promise<void>;
  /** Where the host is, once the page knows: the node opens and reads before any network. */
  setHost(host: HostConfig | undefined): Promise<void>;
}

export type Method = keyof NodeApi;

export interface CallMessage {
  call: number;
  method: Method;
  args: unknown[];
}

export type AnswerMessage =
  | { answer: number; value: unknown }
  | { answer: number; error: { code: string; message: string } };

export type EventMessage =
  | { event: 'changed'; space: string; collections: string[] }
  | { event: 'sync'; space: string; sync: SyncView }
  | { event: 'progress'; space: string; file: string; done: number; total: number };

export const THUMBNAIL_EDGE = 320;
export const AVATAR_EDGE = 96;
