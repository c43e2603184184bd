/**
 * A scripted peer: a test that speaks the sync protocol by hand (spec 05 §8) against a real
 * node, over a memory transport pair. It does the handshake (`hi`, `auth` signed with its own
 * key, `spaces`), records every message the node sends with the (fake or real) time it came,
 * and then sends whatever the test says. Helpers answer Negentropy as a stateless responder
 * over a set of the test's choosing, and make keys whose DID sorts before or after the node's
 * (the smaller DID starts reconciling).
 */
import { randomBytes } from '@noble/ciphers/utils.js';
import { vi } from 'vitest';
import { fromHex } from '../src/bytes.js';
import { encodeCbor } from '../src/encoding.js';
import { SigningKey } from '../src/keys.js';
import { Negentropy, NegentropyStorage } from '../src/negentropy/index.js';
import type { MincaNode } from '../src/node.js';
import { createMemoryTransportPair } from '../src/sync/memory-transport.js';
import {
  decodeMessage,
  encodeMessage,
  type Message,
  NEGENTROPY_FRAME_LIMIT,
} from '../src/sync/messages.js';
import type { Peer } from '../src/sync/peer.js';
import type { Transport } from '../src/sync/transport.js';
import { createVersion, type Version } from '../src/version.js';
import { within } from './files/clock.js';
import { until } from './sync-helpers.js';

export type MessageOf<T extends Message['t']> = Extract<Message, { t: T }>;

/** A key whose DID is smaller (`'starts'`: it reconciles) or larger (`'answers'`) than `did`. */
export function keyThat(role: 'starts' | 'answers', did: string): SigningKey {
  for (;;) {
    const key = SigningKey.generate();
    if (role === 'starts' ? key.did < did : key.did > did) return key;
  }
}

/** Waits for `check` on the fake clock when timers are faked, else in real time. */
export function waitFor(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<unknown> {
  return vi.isFakeTimers() ? within(ms, check, what) : until(check, ms, what);
}

export interface ScriptedPeer {
  key: SigningKey;
  /** The node's end of the connection. */
  peer: Peer;
  /** The transport the node reads from (ours writes to it). */
  transport: Transport;
  /** Every message the node sent, in order, with `Date.now()` when it arrived. */
  received: Array<{ at: number; m: Message }>;
  send(m: Message): void;
  raw(frame: Uint8Array): void;
  /** The messages of type `t` received so far (in `space`, when given). */
  of<T extends Message['t']>(t: T, space?: string): Array<MessageOf<T>>;
  /** Why our end closed, once it did. */
  closedWith(): string | undefined;
  /** Called with each message after it is recorded: a test's automatic answers. */
  onMessage: ((m: Message) => void) | undefined;
  /** Stops (false) or starts again (true) reading what the node sends: it waits on its side. */
  reading(on: boolean): void;
}

/**
 * Connects a scripted peer as `key` to `node` and does the handshake, naming `spaces` (with
 * `credentials`) once the node's `auth` has come. Resolves once the node has proven our key
 * and named its own spaces to us.
 */
export async function scriptedPeer(
  node: MincaNode,
  key: SigningKey,
  spaces: string[],
  options: { credentials?: Uint8Array[] } = {},
): Promise<ScriptedPeer> {
  const [mine, theirs] = createMemoryTransportPair();
  const received: ScriptedPeer['received'] = [];
  let closedWith: string | undefined;
  mine.onClose = (reason) => {
    closedWith = reason ?? 'closed';
  };
  const nonce = randomBytes(32);
  let authSent: Promise<void> = Promise.resolve();
  const scripted: ScriptedPeer = {
    key,
    peer: undefined as unknown as Peer,
    transport: theirs,
    received,
    send: (m) => mine.send(encodeMessage(m)),
    raw: (frame) => mine.send(frame),
    of: <T extends Message['t']>(t: T, space?: string) =>
      received
        .map((r) => r.m)
        .filter(
          (m): m is MessageOf<T> =>
            m.t === t && (space === undefined || (m as { s?: unknown }).s === space),
        ),
    closedWith: () => closedWith,
    onMessage: undefined,
    reading: (on) => (on ? mine.resume?.() : mine.pause?.()),
  };
  mine.onMessage = (frame) => {
    const m = decodeMessage(frame);
    received.push({ at: Date.now(), m });
    if (m.t === 'hi') {
      const signed = encodeCbor(['minca/handshake/v1', key.did, m.d, m.n, nonce]);
      authSent = key.sign(signed).then((g) => mine.send(encodeMessage({ t: 'auth', g })));
    }
    if (m.t === 'auth') {
      const a = options.credentials ?? [];
      void authSent.then(() =>
        mine.send(encodeMessage({ t: 'spaces', s: spaces, ...(a.length ? { a } : {}) })),
      );
    }
    scripted.onMessage?.(m);
  };
  mine.send(encodeMessage({ t: 'hi', v: 1, d: key.did, n: nonce }));
  scripted.peer = node.connect(theirs);
  await waitFor(
    () => scripted.peer.did !== undefined && scripted.of('spaces').length > 0,
    10_000,
    'the handshake',
  );
  return scripted;
}

/** A sealed Negentropy set of `items`: real versions, or `[timestamp, id]` pairs. */
export function syncSetOf(items: ReadonlyArray<Version | readonly [number, Uint8Array]>) {
  const set = new NegentropyStorage();
  for (const item of items) {
    if (Array.isArray(item)) set.insert(item[0] as number, item[1] as Uint8Array);
    else set.insert((item as Version).timestamp, fromHex((item as Version).id));
  }
  set.seal();
  return set;
}

/** `n` made-up items (ids no version has), timestamps from `from`. */
export function fakeItems(n: number, from = 1_000): Array<[number, Uint8Array]> {
  return Array.from({ length: n }, (_, i) => [from + i, randomBytes(32)] as [number, Uint8Array]);
}

/** Our reply to the node's `neg`, as a stateless responder holding `set`. */
export function answerNeg(set: NegentropyStorage, m: MessageOf<'neg'>): MessageOf<'neg'> {
  const { reply } = new Negentropy(set, NEGENTROPY_FRAME_LIMIT).reconcile(m.m) as {
    reply?: Uint8Array;
  };
  return { t: 'neg', s: m.s, c: m.c, m: reply! };
}

/** A hello saying we stand elsewhere than the node: a fingerprint of nobody's set. */
export function helloFrom(space: string, collections: Array<[string, number]>): Message {
  return { t: 'hello', s: space, f: randomBytes(16), c: collections };
}

/** A version written by `key` in `space`, sealed under `spaceKey`. */
export function versionBy(
  key: SigningKey,
  spaceKey: Uint8Array,
  space: string,
  collection: string,
  body: Record<string, unknown>,
  options: { record?: string; timestamp?: number } = {},
): Promise<Version> {
  return createVersion(
    {
      space,
      collection,
      record: options.record ?? `r${Math.random().toString(36).slice(2, 12)}`,
      supersedes: [],
      timestamp: options.timestamp ?? Date.now(),
      files: [],
      body: body as never,
    },
    spaceKey,
    key,
  );
}

/** A space of `node` in which `key` is a writer, with its key. */
export async function memberSpace(node: MincaNode, key: SigningKey) {
  const space = (await node.spaces.create()).id;
  await node.spaces.setRole(space, key.did, 'writer');
  const ticket = await node.spaces.share(space, key.did);
  return { space, spaceKey: ticket.key };
}

/**
 * A writer of a new space of `node`'s, connected to it as a peer whose key `role`s: one that
 * starts reconciling (and so pushes), or one that answers while the node starts. `before` runs
 * on the new space before the peer connects (the node's own writes there, say).
 */
export async function memberPeer(
  node: MincaNode,
  role: 'starts' | 'answers',
  before?: (space: string) => Promise<unknown>,
) {
  const key = keyThat(role, node.did);
  const { space, spaceKey } = await memberSpace(node, key);
  await before?.(space);
  const p = await scriptedPeer(node, key, [space]);
  return { key, space, spaceKey, p };
}

/** A writer of a new space of `node`'s, connected to it as a peer that starts: it pushes. */
export const pushingPeer = (node: MincaNode) => memberPeer(node, 'starts');
