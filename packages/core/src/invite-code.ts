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
}

export const MAX_INVITE_HOLDERS = 16;

const PREFIX = 'minca-invite:';

export function encodeInvite(invite: Invite): string {
  const { space: s, key: k, owner: o, secret: i, offer: v, holders: h } = invite;
  const fields = h && h.length > 0 ? { s, k, o, i, v, h } : { s, k, o, i, v };
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
  if (
    typeof m?.s !== 'string' ||
    !SPACE_ID.test(m.s) ||
    !bytes(m.k, 32) ||
    typeof m.o !== 'string' ||
    !bytes(m.i, 32) ||
    !bytes(m.v) ||
    (m.h !== undefined &&
      (!Array.isArray(m.h) || m.h.length > MAX_INVITE_HOLDERS || !m.h.every((x) => bytes(x))))
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
  };
}
