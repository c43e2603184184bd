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
import { open, randomKey, seal } from '../seal.js';
import { openWithKeys } from '../version.js';
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

/**
 * The keys after `known` that the owner's key records wrap for `me`, in epoch order; it stops
 * at the first epoch it can't open (this node was not a member then).
 */
export async function learnKeys(
  view: {
    id: string;
    owner: string;
    store: import('../store.js').Store;
    keys: readonly Uint8Array[];
  },
  membership: Membership,
  me: SigningKey,
): Promise<Uint8Array[]> {
  const found: Uint8Array[] = [];
  if (view.store.count(KEY_COLLECTION) === 0) return found;
  for (let epoch = view.keys.length; ; epoch++) {
    const record = await view.store.record(KEY_COLLECTION, keyRecordId(epoch));
    let key: Uint8Array | undefined;
    for (const meta of record?.versions ?? []) {
      if (membership.accountAt(meta.author, meta.timestamp) !== view.owner || meta.deleted)
        continue;
      const version = await view.store.getVersion(meta.id);
      if (!version) continue;
      let body: BodyValue | null;
      try {
        body = openWithKeys(version, [...view.keys, ...found]);
      } catch {
        continue;
      }
      const wraps = (body as { epoch?: unknown; wraps?: unknown } | null)?.wraps;
      if ((body as { epoch?: unknown })?.epoch !== epoch || !Array.isArray(wraps)) continue;
      const mine = wraps.find(
        (w) => Array.isArray(w) && w[0] === me.did && w[1] instanceof Uint8Array,
      );
      key = mine && unwrapKey(me, view.id, epoch, mine[1] as Uint8Array);
      if (key) break;
    }
    if (!key) return found;
    found.push(key);
  }
}

/** Everyone the owner's records of epoch `epoch` wrap the key for. */
export async function wrappedFor(
  view: { owner: string; store: import('../store.js').Store; keys: readonly Uint8Array[] },
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
 * Whether a body that opens under none of `view`'s keys may still be kept: the owner wrote a key
 * record of an epoch this node has no key for (it was removed), held or in `batch`. It is kept,
 * unread, so stores stay level; nothing it says stands here.
 */
export async function keptUnread(
  view: { owner: string; store: import('../store.js').Store; keys: readonly Uint8Array[] },
  membership: Membership,
  batch: readonly import('../version.js').Version[],
): Promise<boolean> {
  const next = keyRecordId(view.keys.length);
  const byOwner = (author: string, at: number) => membership.accountAt(author, at) === view.owner;
  const held = await view.store.record(KEY_COLLECTION, next);
  if (held?.versions.some((m) => byOwner(m.author, m.timestamp))) return true;
  return batch.some(
    (v) => v.collection === KEY_COLLECTION && v.record === next && byOwner(v.author, v.timestamp),
  );
}
