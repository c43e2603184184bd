/**
 * Invite codes: what one person hands another to join a space. A code carries the space id,
 * key and owner, the invite's secret key, and the owner's offer (its `sys.invite` version), as
 * `minca-invite:` and base64url of CBOR. It holds the space key: treat it as a secret.
 */
import { base64urlnopad } from '@scure/base';
import { decodeStrict, encodeCbor } from './encoding.js';
import { MincaError } from './errors.js';
import { SPACE_ID } from './ids.js';

export interface Invite {
  space: string;
  key: Uint8Array;
  owner: string;
  secret: Uint8Array;
  offer: Uint8Array;
  /**
   * The owner's `sys.holder` versions, so a joiner who meets only a host knows it may name the
   * space there (spec 05 §7.2, §7.3). At most {@link MAX_INVITE_HOLDERS}.
   */
  holders?: Uint8Array[];
  /**
   * The `sys.writer` versions of the owner's writers that wrote the offer and holders, so the
   * joiner can tell they are the owner's (spec 05 §6). At most {@link MAX_INVITE_HOLDERS}.
   */
  writers?: Uint8Array[];
  /** The space's older keys, oldest first, so the joiner reads what came before (§7.4). */
  oldKeys?: Uint8Array[];
}

export const MAX_INVITE_HOLDERS = 16;
/** Older keys an invite carries. */
export const MAX_OLD_KEYS = 64;

const PREFIX = 'minca-invite:';

export function encodeInvite(invite: Invite): string {
  const {
    space: s,
    key: k,
    owner: o,
    secret: i,
    offer: v,
    holders: h,
    writers: w,
    oldKeys,
  } = invite;
  const fields = {
    s,
    k,
    o,
    i,
    v,
    ...(h && h.length > 0 ? { h } : {}),
    ...(w && w.length > 0 ? { w } : {}),
    ...(oldKeys && oldKeys.length > 0 ? { ks: oldKeys } : {}),
  };
  return PREFIX + base64urlnopad.encode(encodeCbor(fields));
}

export function decodeInvite(code: string): Invite {
  const bad = (): never => {
    throw new MincaError('invalid_input', 'not a minca invite code');
  };
  if (typeof code !== 'string' || !code.startsWith(PREFIX) || code.length > 600_000) bad();
  let m: Record<string, unknown> = {};
  try {
    m = decodeStrict(base64urlnopad.decode(code.slice(PREFIX.length).trim()), {
      maxBytes: 400_000,
      maxDepth: 2,
    }) as Record<string, unknown>;
  } catch {
    bad();
  }
  const bytes = (v: unknown, n?: number) =>
    v instanceof Uint8Array && (n === undefined || v.length === n);
  const list = (v: unknown, max: number, n?: number) =>
    v === undefined || (Array.isArray(v) && v.length <= max && v.every((x) => bytes(x, n)));
  if (
    typeof m?.s !== 'string' ||
    !SPACE_ID.test(m.s) ||
    !bytes(m.k, 32) ||
    typeof m.o !== 'string' ||
    !bytes(m.i, 32) ||
    !bytes(m.v) ||
    !list(m.h, MAX_INVITE_HOLDERS) ||
    !list(m.w, MAX_INVITE_HOLDERS) ||
    !list(m.ks, MAX_OLD_KEYS, 32)
  ) {
    bad();
  }
  return {
    space: m.s as string,
    key: m.k as Uint8Array,
    owner: m.o as string,
    secret: m.i as Uint8Array,
    offer: m.v as Uint8Array,
    ...(m.h ? { holders: m.h as Uint8Array[] } : {}),
    ...(m.w ? { writers: m.w as Uint8Array[] } : {}),
    ...(m.ks ? { oldKeys: m.ks as Uint8Array[] } : {}),
  };
}
