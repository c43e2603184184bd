/**
 * Connections to peers over WebSocket (`ws`), kept up with core's `keepConnectedToAny`, and
 * waiting until the spaces shared with them are level. A peer may be given as several
 * addresses, separated by `|` (the hosts of a fleet, `ws://a:4455|ws://b:4455`): one of them
 * is used, and the next when it fails. (A comma separates peers in `MINCA_PEERS`.)
 */
import {
  keepConnectedToAny,
  type MincaNode,
  type Peer,
  WEBSOCKET_DEFLATE,
  type WebSocketLike,
} from '@minca/core';
import { WebSocket } from 'ws';
import { CliError, EXIT } from './cli-error.js';

/** Frames up to 4 MiB, as the sync protocol bounds them. */
export const MAX_PAYLOAD = 4 * 1024 * 1024;

export interface Link {
  /** The address in use now (or being tried): one of `urls`. */
  readonly url: string;
  /** Every address of the peer, as given. */
  readonly urls: readonly string[];
  /** The current connection's peer, if connected. */
  peer(): Peer | undefined;
  /** Why the last connection ended, if one did. */
  lastError(): string | undefined;
  /** The spaces the peer (a host) refused on the latest connection, with its reason for each. */
  refused(): ReadonlyMap<string, string>;
  close(): void;
}

/** Checks a peer address: ws:// or wss://. */
export function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(
      EXIT.usage,
      `${JSON.stringify(url)} is not a URL: give one like ws://127.0.0.1:4455`,
    );
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw new CliError(EXIT.usage, `${url}: a peer's URL starts with ws:// or wss://`);
  }
  return url;
}

/** The addresses of one peer given as `ws://a|ws://b` (a fleet's hosts), each checked. */
export function peerAddresses(spec: string | readonly string[]): string[] {
  const urls = (typeof spec === 'string' ? spec.split('|') : [...spec])
    .map((u) => u.trim())
    .filter((u) => u.length > 0);
  if (urls.length === 0) throw new CliError(EXIT.usage, 'a peer needs an address (ws://…)');
  return urls.map(checkUrl);
}

/**
 * Connects `node` to a peer at `spec` (one address, or several of one fleet) and keeps it
 * connected until `close()`, moving to the next address when one fails.
 */
export function linkTo(
  node: MincaNode,
  spec: string | readonly string[],
  options: { maxDelayMs?: number; first?: number } = {},
): Link {
  const urls = peerAddresses(spec);
  let current: Peer | undefined;
  let lastError: string | undefined;
  let refused: ReadonlyMap<string, string> = new Map();
  const kept = keepConnectedToAny(
    urls,
    (url) => {
      const socket = new WebSocket(url, {
        maxPayload: MAX_PAYLOAD,
        perMessageDeflate: WEBSOCKET_DEFLATE,
      });
      // An unreachable peer is reported through the transport's close; keep `ws` from throwing.
      socket.on('error', (error) => {
        lastError = error.message;
      });
      return socket as unknown as WebSocketLike;
    },
    (transport) => {
      const peer = node.connect(transport);
      current = peer;
      refused = peer.refusedSpaces();
      peer.onEnd((reason) => {
        lastError = reason;
        if (current === peer) current = undefined;
      });
    },
    {
      minDelayMs: 200,
      maxDelayMs: options.maxDelayMs ?? 5_000,
      ...(options.first === undefined ? {} : { first: options.first }),
    },
  );
  return {
    get url() {
      return kept.current();
    },
    urls,
    peer: () => current,
    lastError: () => lastError,
    refused: () => refused,
    close: () => kept.close(),
  };
}

/** How one space stands with one peer. */
export interface SyncState {
  url: string;
  did?: string;
  space: string;
  synced: boolean;
  level: boolean;
  /** Why the peer refused a version of ours, such as a host over its subscription. */
  refused?: string;
}

/** Every shared space's state with each link's peer, now. */
export async function syncStates(node: MincaNode, links: readonly Link[]): Promise<SyncState[]> {
  const out: SyncState[] = [];
  for (const link of links) {
    const peer = link.peer();
    if (!peer?.did) continue;
    for (const space of peer.spaces()) {
      const status = peer.status(space);
      if (status) out.push({ url: link.url, space, ...status });
    }
  }
  void node;
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The spaces here that name `did`: as their owner, a member or a holder the owner allows. A
 * sync with `did` should share every one of them.
 */
export async function spacesNaming(node: MincaNode, did: string): Promise<string[]> {
  // Opening a space brings its entry in the sharing index up to date (another process may have
  // changed its members since).
  for (const space of await node.spaces.list()) await node.spaces.open(space);
  return node.spaces.sharedWith(did);
}

/** A sync that ended short of what it should have synced: with the states it did reach. */
export class SyncIncomplete extends CliError {
  constructor(
    message: string,
    readonly states: SyncState[],
  ) {
    super(EXIT.unavailable, message);
  }
}

/** A space a link's peer should share and has not (yet). */
interface Unshared {
  url: string;
  space: string;
}

/**
 * Waits until every link is connected, every space that names its peer is shared with it, and
 * every shared space is level, or, if a peer holds back something (refused, over a limit),
 * synced and unchanged for a while. Throws `unavailable` after `timeoutMs`, saying which space
 * was not shared or not synced: a sync never ends well having synced less than it should.
 */
export async function waitForSync(
  node: MincaNode,
  links: readonly Link[],
  options: { timeoutMs: number; onState?: (states: SyncState[]) => void },
): Promise<SyncState[]> {
  const deadline = Date.now() + options.timeoutMs;
  let states: SyncState[] = [];
  let settledSince: number | undefined;
  let lastKey = '';
  /** Per peer DID, the spaces here that name it. */
  const expected = new Map<string, string[]>();
  const unshared = (): Unshared[] =>
    links.flatMap((link) => {
      const peer = link.peer();
      const spaces = peer?.did ? (expected.get(peer.did) ?? []) : [];
      const shared = new Set(peer?.spaces() ?? []);
      return spaces.filter((s) => !shared.has(s)).map((space) => ({ url: link.url, space }));
    });
  while (true) {
    // A peer that said goodbye with a reason (a host refusing the space) will say it again.
    const refusedBy = links.find((l) => /refused: /.test(l.lastError() ?? ''));
    if (refusedBy) {
      // Each space it refused, with its own reason; the goodbye gives the first.
      const each = [...refusedBy.refused()].map(([space, why]) => `space ${space} refused: ${why}`);
      const why =
        each.length > 0 ? each.join('; ') : refusedBy.lastError()!.replace(/^peer left: /, '');
      throw new CliError(EXIT.refused, `${refusedBy.url}: ${why}`);
    }
    for (const link of links) {
      const did = link.peer()?.did;
      if (did && !expected.has(did)) expected.set(did, await spacesNaming(node, did));
    }
    // A host that refused some spaces and shares others said why for each: those are not
    // waited for, and the sync fails for them once the rest is synced.
    const refusals = links.flatMap((l) =>
      [...l.refused()].map(([space, why]) => ({ url: l.url, space, why })),
    );
    const isRefused = (u: Unshared) => refusals.some((r) => r.space === u.space && r.url === u.url);
    const connected = links.every((l) => l.peer()?.did);
    states = await syncStates(node, links);
    options.onState?.(states);
    if (connected) {
      const allLevel = states.every((s) => s.level);
      // A peer that refuses our versions (a host over its limits) is as far as it will go.
      const allSynced = states.every((s) => s.synced || s.refused !== undefined);
      const key = JSON.stringify(states);
      if (key !== lastKey) settledSince = Date.now();
      lastKey = key;
      const quietFor = Date.now() - (settledSince ?? Date.now());
      // With nothing here naming the peer, a space may still come: the peer may be reading
      // our credentials. Spaces that name it are waited for, however long they take.
      const enough = states.length === 0 ? 2_000 : allLevel ? 300 : 3_000;
      const waiting = unshared().filter((u) => !isRefused(u));
      if (waiting.length === 0 && (allLevel || allSynced) && quietFor >= enough) {
        if (refusals.length === 0) return states;
        const why = refusals.map((r) => `${r.url} did not share space ${r.space}: ${r.why}`);
        throw new SyncIncomplete(why.join('; '), states);
      }
    }
    if (Date.now() > deadline) {
      const missing = links.filter((l) => !l.peer()?.did);
      const notShared = unshared();
      const seconds = Math.round(options.timeoutMs / 1000);
      const why = missing.length
        ? `could not reach ${missing.map((l) => `${l.url} (${l.lastError() ?? 'no answer'})`).join(', ')}: check the address and that the peer runs, or raise --timeout`
        : notShared.length
          ? `${notShared.map((u) => `${u.url} did not share space ${u.space}`).join(', ')} within ${seconds} s, though the space names it: it may not hold the space yet, or may have refused it (minca status shows each peer), or raise --timeout`
          : `not synced after ${seconds} s: check that the peer runs, or raise --timeout`;
      throw new SyncIncomplete(why, states);
    }
    await sleep(100);
  }
}
