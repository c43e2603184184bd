/**
 * What a tab and the node's worker say to each other over a MessagePort: calls with answers,
 * and events the worker sends every tab. Everything here survives structured cloning. Tabs see
 * no keys: a picture's file is named by id, and the worker reads it for them.
 */
import type { SpaceTicket } from '@minca/core';
import type { PreparedImage } from '@minca/std';

/** A file a record names, as this device holds it. */
export interface FileView {
  id: string;
  size: number;
  /** Held whole on this device: reading it needs no network. */
  whole: boolean;
}

/** A `std.image` (spec 05 §17.1) as a tab shows it. */
export interface PictureView {
  mime: string;
  width: number;
  height: number;
  /** A ThumbHash, shown before any file is here. */
  placeholder?: Uint8Array;
  alt?: string;
  file: FileView;
  /** A small JPEG (at most 320 px), in a file of its own. */
  thumbnail?: FileView;
}

export interface PostView {
  id: string;
  author: string;
  /** The winning version's timestamp, ms. */
  at: number;
  /** May be empty when there is a photo. */
  text: string;
  photo?: PictureView;
  video?: VideoView;
}

/** A post's video (worker/video-body.ts): played through the service worker, by range. */
export interface VideoView {
  mime: string;
  width: number;
  height: number;
  /** ms, when known. */
  duration?: number;
  file: FileView;
  /** A frame of it, a small picture shown before it plays. */
  poster?: PictureView;
}

/** A photo to post, made ready in the tab (`prepareImage`): the worker adds its files. */
export interface NewPhoto {
  image: PreparedImage;
  name: string;
}

/** A video to post, made ready in the tab (`prepareVideo`): the worker adds its files. */
export interface NewVideo {
  /** The file the person picked: the worker reads it, the tab never holds its bytes. */
  file: Blob;
  name: string;
  mime: string;
  width: number;
  height: number;
  /** ms. */
  duration?: number;
  poster?: PreparedImage;
}

/** The device's file limits, bytes per space (Infinity allowed): see `node.setFileLimits`. */
export interface FileLimitsView {
  ahead: number;
  keep: number;
}

/** A `std.profile` (spec 05 §17.2) that counts. */
export interface ProfileView {
  did: string;
  name: string;
  avatar?: PictureView;
  /** The owner removed them: no longer in the space, their earlier posts still theirs. */
  removed?: true;
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
  /** Why the peer last refused a version of ours (a host over its limits). */
  refused?: string;
}

/** What the worker tells every tab about the node and one space. */
export interface SyncView {
  /** The tabs said the browser is online, and the person did not choose to work offline. */
  online: boolean;
  /** A connection to the host is open. */
  connected: boolean;
  /** The host's DID, when there is a host. */
  host?: string;
  /** Connected peers sharing the space (the host among them). */
  peers: PeerView[];
  /** Posts written here that the host may not have yet (none once level with it). */
  waiting: number;
  /**
   * For the owner: invite links accepted by more than one account still in the space (a
   * forwarded link), each with those accounts, earliest first. Each of them has the role.
   */
  reused: Array<{ accounts: string[] }>;
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
 * host), and what the person opening it is told: which space, from whom.
 */
export interface Invite {
  code: string;
  space: { id: string; name: string };
  from: { did: string; name: string };
}

/** A space handed to a connected app: what it joins with, and its name to show. */
export interface AppSpace {
  ticket: SpaceTicket;
  name: string;
}

export interface Opened {
  did: string;
  instance: string;
}

export interface NodeApi {
  /** `instance` names this run of the node: tabs sharing one node see the same. */
  open(request: OpenRequest): Promise<Opened>;
  spaces(): Promise<SpaceView[]>;
  /** Makes a space, and the account's profile in it. */
  createSpace(name: string): Promise<SpaceView>;
  invite(space: string): Promise<Invite>;
  /** Joins with an invite code, and writes the account's profile in the space. */
  join(code: string): Promise<SpaceView>;
  posts(space: string, limit: number): Promise<PostView[]>;
  /** A post with text, and a photo or a video. */
  post(
    space: string,
    text: string,
    photo: NewPhoto | undefined,
    video?: NewVideo,
  ): Promise<PostView>;
  /**
   * The bytes of a post's picture or its thumbnail, or its video's poster, or of a person's
   * avatar, fetched from peers when not here (progress events).
   */
  readPicture(
    space: string,
    of: { post: string; part: 'file' | 'thumbnail' | 'poster' } | { profile: string },
  ): Promise<Uint8Array>;
  setFileLimits(limits: FileLimitsView): Promise<void>;
  /** The profiles in the space, of those in it and of those the owner removed. */
  profiles(space: string): Promise<ProfileView[]>;
  /**
   * Owner only: takes `did`'s role away from now on (what they wrote stays) and changes the
   * space's key, so they can't read what comes after (`spaces.removeMember`).
   */
  removeMember(space: string, did: string): Promise<void>;
  /** The account's name and avatar, written in every space it is in. */
  setProfile(name: string, avatar: PreparedImage | undefined): Promise<void>;
  sync(space: string): Promise<SyncView>;
  /** The tab's view of the network: the browser's online state and the person's choice. */
  setOnline(online: boolean): Promise<void>;
  /** Where the host is, once the page knows: the node opens and reads before any network. */
  setHost(host: HostConfig | undefined): Promise<void>;
  /**
   * Closes the node and deletes the account's copy in this browser: its `minca:` databases,
   * its keys and its entry (not a data folder's `minca-pod:` stores). Gives the databases
   * deleted. The node is gone after it.
   */
  forget(): Promise<string[]>;
  /**
   * Takes in the root's revocation of a key of the account (a connected app's): kept in every
   * space the node writes in, and the spaces it owns change key (`spaces.revoke`).
   */
  revoke(statement: Uint8Array): Promise<void>;
  /** What a connected app needs of `spaces` to join them (the account's tickets). */
  shareWithApp(spaces: string[]): Promise<AppSpace[]>;
  /**
   * Syncs with a connected app over `port` (transferred), sharing only `spaces`: the home
   * hands over the spaces' own records this way (spec 05 §18.2).
   */
  connectApp(port: MessagePort, spaces: string[]): Promise<void>;
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
