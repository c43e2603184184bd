/**
 * Connections to peers over WebSocket (`ws`), kept up with core's `keepConnected`, and waiting
 * until the spaces shared with them are level.
 */
import { keepConnected, type MincaNode, type Peer, type WebSocketLike } from '@minca/core';
import { WebSocket } from 'ws';
import { CliError, EXIT } from './cli-error.js';

/** Frames up to 4 MiB, as the sync protocol bounds them. */
export const MAX_PAYLOAD = 4 * 1024 * 1024;

export interface Link {
  url: string;
  /** The current connection's peer, if connected. */
  peer(): Peer | undefined;
  /** Why the last connection ended, if one did. */
  lastError(): string | undefined;
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

/** Connects `node` to `url` and keeps it connected until `close()`. */
export function linkTo(node: MincaNode, url: string, options: { maxDelayMs?: number } = {}): Link {
  checkUrl(url);
  let current: Peer | undefined;
  let lastError: string | undefined;
  const kept = keepConnected(
    () => {
      const socket = new WebSocket(url, { maxPayload: MAX_PAYLOAD });
      // An unreachable peer is reported through the transport's close; keep `ws` from throwing.
      socket.on('error', (error) => {
        lastError = error.message;
      });
      return socket as unknown as WebSocketLike;
    },
    (transport) => {
      const peer = node.connect(transport);
      current = peer;
      peer.onEnd((reason) => {
        lastError = reason;
        if (current === peer) current = undefined;
      });
    },
    { minDelayMs: 200, maxDelayMs: options.maxDelayMs ?? 5_000 },
  );
  return {
    url,
    peer: () => current,
    lastError: () => lastError,
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
      const why = refusedBy.lastError()!.replace(/^peer left: /, '');
      throw new CliError(EXIT.refused, `${refusedBy.url}: ${why}`);
    }
    for (const link of links) {
      const did = link.peer()?.did;
      if (did && !expected.has(did)) expected.set(did, await spacesNaming(node, did));
    }
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
      if (unshared().length === 0 && (allLevel || allSynced) && quietFor >= enough) return states;
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
