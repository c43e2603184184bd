/**
 * The account home's connection to a connected app, over the MessagePort the app sent with its
 * request (spec 05 §18.2): it shares only the spaces the person approved for that app.
 *
 * The app's peer is the account itself (its writer key's certificate says so), and a node names
 * to a peer every space its account is in (spec 05 §8): the other spaces' ids, and the
 * credentials there, would reach the app. So this transport reads each `spaces` message, both
 * ways, and keeps only what is about an approved space: their ids in `s`, credentials (version
 * bytes) of those spaces in `a`, access proofs for them in `p`. Probes (`m`) stay: one opens
 * only for a peer holding that space's key. A space neither side names is never shared, so
 * nothing else about it travels. Every other message passes as it is; core judges them all.
 */
import { decodeStrict, decodeVersion, encodeCbor, type Transport } from '@minca/core';

/** As the sync protocol bounds a message (spec 05 §8). */
const MAX_FRAME_BYTES = 2 * 1024 * 1024;

type Fields = Record<string, unknown>;

function spaceOf(credential: unknown): string | undefined {
  try {
    return credential instanceof Uint8Array ? decodeVersion(credential).space : undefined;
  } catch {
    return undefined;
  }
}

/** `message` with only what is about `approved`; anything that isn't `spaces` as it came. */
export function onlyApproved(message: Uint8Array, approved: ReadonlySet<string>): Uint8Array {
  let m: Fields;
  try {
    m = decodeStrict(message, { maxBytes: MAX_FRAME_BYTES, maxDepth: 3 }) as Fields;
  } catch {
    return message; // Not CBOR: the node refuses it itself.
  }
  if (m === null || typeof m !== 'object' || m.t !== 'spaces' || !Array.isArray(m.s))
    return message;
  const out: Fields = { ...m, s: m.s.filter((id) => approved.has(id as string)) };
  if (Array.isArray(m.a)) {
    const a = m.a.filter((v) => {
      const space = spaceOf(v);
      return space !== undefined && approved.has(space);
    });
    if (a.length > 0) out.a = a;
    else delete out.a;
  }
  if (Array.isArray(m.p)) {
    const p = m.p.filter((entry) => Array.isArray(entry) && approved.has(entry[0] as string));
    if (p.length > 0) out.p = p;
    else delete out.p;
  }
  return encodeCbor(out);
}

/** `inner`, sharing only the spaces in `approved` with the peer at its other end. */
export function approvedSpacesOnly(inner: Transport, approved: ReadonlySet<string>): Transport {
  const link: Transport = {
    onMessage: undefined,
    onClose: undefined,
    get closed() {
      return inner.closed;
    },
    send: (message) => inner.send(onlyApproved(message, approved)),
    close: (reason) => inner.close(reason),
  };
  inner.onMessage = (message) => link.onMessage?.(onlyApproved(message, approved));
  inner.onClose = (reason) => link.onClose?.(reason);
  return link;
}
