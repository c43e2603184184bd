/**
 * A space's key changes (spec 05 §7.4): when a member or device leaves, the owner writes
 * `sys.key/k<n>` `{ epoch: n, wraps: [[writer DID, wrapped key]…] }` with a fresh key wrapped
 * for every writer of every remaining member, and seals what it writes next under it. Older
 * bodies keep opening under older keys, which every member keeps; one who left never learns
 * the new key. Holders are unaffected: the access key comes from the space's first key.
 */
import { x25519 } from '@noble/curves/ed25519.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { BodyValue } from '../body.js';
import { utf8 } from '../bytes.js';
import { montgomeryOf, type SigningKey } from '../keys.js';
import type { VersionMeta } from '../record-state.js';
import { open, randomKey, seal } from '../seal.js';
import type { Store } from '../store.js';
import { openWithKeys, type Version } from '../version.js';
import type { Membership } from './membership.js';

export const KEY_COLLECTION = 'sys.key';
/** Recipients one key record wraps for. */
export const MAX_KEY_RECIPIENTS = 4096;
const WRAP_INFO = 'minca/space-key/v1';

/** The record id of the key of epoch `n` (the space's first key is epoch 0, never written). */
export const keyRecordId = (epoch: number) => `k${epoch}`;

function wrapKeyFor(
  space: string,
  epoch: number,
  recipient: string,
): (ephemeral: Uint8Array, shared: Uint8Array) => Uint8Array {
  return (ephemeral, shared) =>
    hkdf(sha256, shared, ephemeral, utf8(`${WRAP_INFO}/${space}/${epoch}/${recipient}`), 32);
}

/** `key` wrapped for `recipient`: an ephemeral X25519 public key, then the sealed key. */
export function wrapKey(
  space: string,
  epoch: number,
  recipient: string,
  key: Uint8Array,
): Uint8Array {
  const secret = x25519.utils.randomSecretKey();
  const ephemeral = x25519.getPublicKey(secret);
  const shared = x25519.getSharedSecret(secret, montgomeryOf(recipient));
  const sealed = seal(wrapKeyFor(space, epoch, recipient)(ephemeral, shared), key);
  const out = new Uint8Array(32 + sealed.length);
  out.set(ephemeral);
  out.set(sealed, 32);
  return out;
}

/** The key wrapped for `me`, or `undefined` when it does not open. */
export function unwrapKey(
  me: SigningKey,
  space: string,
  epoch: number,
  wrapped: Uint8Array,
): Uint8Array | undefined {
  if (wrapped.length <= 32) return undefined;
  const ephemeral = wrapped.subarray(0, 32);
  try {
    const key = open(
      wrapKeyFor(space, epoch, me.did)(ephemeral, me.agree(ephemeral)),
      wrapped.subarray(32),
    );
    return key.length === 32 ? key : undefined;
  } catch {
    return undefined;
  }
}

/** What a key record holds for the owner to write: a fresh key, wrapped for `recipients`. */
export function newKeyRecord(
  space: string,
  epoch: number,
  recipients: readonly string[],
): { key: Uint8Array; body: BodyValue } {
  const key = randomKey();
  return { key, body: keyRecordFor(space, epoch, key, recipients) };
}

/** Who a new key is wrapped for: every writer of every member now, and each member's account key. */
export function keyRecipients(membership: Membership): string[] {
  const out = new Set<string>();
  for (const account of membership.members().keys()) {
    out.add(account);
    for (const writer of membership.writersOf(account))
      if (membership.accountAt(writer, Number.MAX_SAFE_INTEGER) === account) out.add(writer);
  }
  return [...out];
}

/** What reading key records needs of a space. */
interface KeyView {
  id: string;
  owner: string;
  store: Store;
  keys: readonly Uint8Array[];
  /** Unwraps done so far, by version id: a record is opened once. */
  checked: Map<string, unknown>;
}

/**
 * The keys of a space this node can learn from its owner's key records (spec 05 §7.4), by
 * epoch: each epoch's keys wrapped for `me`, the record's winner's last (what to seal under).
 * Two devices of the owner may change the key at once: every key of an epoch is kept, so
 * whatever either sealed opens, and the winner's is the one sealed under from then on.
 */
export interface KeyRing {
  /** Epoch 0 is the space's first key; then each epoch this node has keys for. */
  epochs: Map<number, Uint8Array[]>;
  /** The highest epoch the owner wrote a key record of: past `learned`, this node was left out. */
  highest: number;
  /** The highest epoch this node has a key for. */
  learned: number;
}

const EPOCH_RECORD = /^k([1-9][0-9]{0,5})$/;
const same = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export async function readKeyRing(
  view: KeyView,
  membership: Membership,
  me: SigningKey,
): Promise<KeyRing> {
  const epochs = new Map<number, Uint8Array[]>([[0, [view.keys[0]!]]]);
  const records = (await view.store.records(KEY_COLLECTION)).records;
  const byOwner = (m: VersionMeta) =>
    !m.deleted && membership.accountAt(m.author, m.timestamp) === view.owner;
  let highest = 0;
  for (const [id, record] of records ?? []) {
    const epoch = EPOCH_RECORD.exec(id);
    if (epoch && record.versions.some(byOwner)) highest = Math.max(highest, Number(epoch[1]));
  }
  const known = [...view.keys];
  let learned = 0;
  for (let epoch = 1; epoch <= highest; epoch++) {
    const record = records?.get(keyRecordId(epoch));
    const winner = record?.winner();
    // The winner last: its key is the one sealed under.
    const metas = (record?.versions ?? [])
      .filter(byOwner)
      .sort((a, b) => Number(a === winner) - Number(b === winner) || a.timestamp - b.timestamp);
    const keys: Uint8Array[] = [];
    for (const meta of metas) {
      const key = await keyIn(view, meta, epoch, known, me);
      if (!key) continue;
      const at = keys.findIndex((k) => same(k, key));
      if (at >= 0) keys.splice(at, 1);
      keys.push(key);
    }
    // Not wrapped for this node: later keys are sealed under ones it lacks.
    if (keys.length === 0) break;
    epochs.set(epoch, keys);
    learned = epoch;
    for (const key of keys) if (!known.some((k) => same(k, key))) known.push(key);
  }
  return { epochs, highest, learned };
}

/** The key of epoch `epoch` that the owner's record `meta` wraps for `me`, once per version. */
async function keyIn(
  view: KeyView,
  meta: VersionMeta,
  epoch: number,
  known: readonly Uint8Array[],
  me: SigningKey,
): Promise<Uint8Array | undefined> {
  const cached = `key:${meta.id}`;
  if (view.checked.has(cached)) return view.checked.get(cached) as Uint8Array | undefined;
  const version = await view.store.getVersion(meta.id);
  if (!version) return undefined;
  let body: BodyValue | null;
  try {
    body = openWithKeys(version, known);
  } catch {
    return undefined; // sealed under a key not known yet: asked again when one is
  }
  const { epoch: said, wraps } = (body ?? {}) as { epoch?: unknown; wraps?: unknown };
  let key: Uint8Array | undefined;
  if (said === epoch && Array.isArray(wraps)) {
    const mine = wraps.find(
      (w) => Array.isArray(w) && w[0] === me.did && w[1] instanceof Uint8Array,
    );
    key = mine && unwrapKey(me, view.id, epoch, mine[1] as Uint8Array);
  }
  view.checked.set(cached, key);
  return key;
}

/** Everyone the owner's records of epoch `epoch` wrap the key for. */
export async function wrappedFor(
  view: { owner: string; store: Store; keys: readonly Uint8Array[] },
  membership: Membership,
  epoch: number,
): Promise<Set<string>> {
  const out = new Set<string>();
  const record = await view.store.record(KEY_COLLECTION, keyRecordId(epoch));
  for (const meta of record?.versions ?? []) {
    if (membership.accountAt(meta.author, meta.timestamp) !== view.owner || meta.deleted) continue;
    const version = await view.store.getVersion(meta.id);
    if (!version) continue;
    try {
      const wraps = (openWithKeys(version, view.keys) as { wraps?: unknown } | null)?.wraps;
      if (Array.isArray(wraps))
        for (const w of wraps) if (Array.isArray(w) && typeof w[0] === 'string') out.add(w[0]);
    } catch {
      // A record that won't open wraps for nobody here.
    }
  }
  return out;
}

/** The body of another record of epoch `epoch` holding `key`, wrapped for `recipients`. */
export function keyRecordFor(
  space: string,
  epoch: number,
  key: Uint8Array,
  recipients: readonly string[],
): BodyValue {
  const wraps = [...new Set(recipients)]
    .slice(0, MAX_KEY_RECIPIENTS)
    .map((did) => [did, wrapKey(space, epoch, did, key)] as [string, Uint8Array]);
  return { epoch, wraps };
}

/**
 * Whether a body that opens under none of this node's keys may still be kept: the owner wrote a
 * key record of an epoch this node has no key for (it was left out: removed), held or in
 * `batch`. It is kept, unread, so stores stay level; nothing it says stands here.
 */
export function keptUnread(
  view: { owner: string },
  ring: KeyRing,
  membership: Membership,
  batch: readonly Version[],
): boolean {
  if (ring.highest > ring.learned) return true;
  return batch.some((v) => {
    const epoch = EPOCH_RECORD.exec(v.collection === KEY_COLLECTION ? v.record : '');
    return (
      epoch !== null &&
      Number(epoch[1]) > ring.learned &&
      membership.accountAt(v.author, v.timestamp) === view.owner
    );
  });
}
