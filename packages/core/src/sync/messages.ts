/**
 * The sync protocol's messages: one CBOR map per transport message, strictly decoded and
 * bounded. Spec 05 §8.
 */
import { decodeStrict, encodeCbor } from '../encoding.js';
import { MincaError } from '../errors.js';
import { MAX_CERTIFICATE_BYTES } from '../identity/certificate.js';
import { MAX_CHAIN } from '../identity/writer-chain.js';
import { SPACE_ID } from '../ids.js';
import { isCollectionName } from '../names.js';
import { MAX_VERSION_BYTES } from '../version.js';
import { MAX_IDS_PER_WANT } from './pacing.js';

export const PROTOCOL_VERSION = 1;
/** Largest message a node sends or takes. */
export const MAX_FRAME_BYTES = 2 * 1024 * 1024;
/** Negentropy's own frame limit inside a `neg` message. */
export const NEGENTROPY_FRAME_LIMIT = 512 * 1024;
/** Versions one `vers` message may carry. */
export const MAX_VERSIONS_PER_MESSAGE = 4096;
/**
 * Bytes of versions a node packs into one `vers` message it sends (one version larger than that
 * goes alone): a sixteenth of a frame. A receiver holds a few messages' versions at once, decoded
 * and being checked, so this, not the frame limit, is what a joining device holds in flight.
 */
export const VERS_MESSAGE_BYTES = 128 * 1024;
/** A `pull`'s cursor: the last version had, as its timestamp (uint64, big-endian) and id. */
export const CURSOR_BYTES = 40;
/** Spaces one connection may name. */
export const MAX_SPACES = 10_000;
/** Refused spaces one `spaces` message may carry, and the length of each reason. */
export const MAX_REFUSALS = 1_024;
export const MAX_REFUSAL_REASON = 300;

export type Message =
  /** Opens a connection: who I say I am, and a nonce for you to sign. */
  | { t: 'hi'; v: number; d: string; n: Uint8Array }
  /**
   * Proves `hi`'s DID: a signature over both DIDs and both nonces; `c`, the certificates that
   * tie that key to its account (spec 05 §6), when it has any.
   */
  | { t: 'auth'; g: Uint8Array; c?: Uint8Array[] }
  /**
   * Sent once the peer proved its DID, and again when more become shared: the spaces I will
   * sync with it, and the versions giving me my role there, so a peer that doesn't know me yet can.
   * `p`: to a holder (spec 05 §7.3), [space, access DID, access proof] for the spaces it may hold.
   * `m`: probes, one per space I hold and did not name to you, which a member of it can match.
   * `r`: from a holder, [space, reason] for each space you proved that it will not hold.
   */
  | {
      t: 'spaces';
      s: string[];
      a?: Uint8Array[];
      p?: Array<[string, string, Uint8Array]>;
      m?: Uint8Array[];
      r?: Array<[string, string]>;
    }
  /**
   * Where I am in a space: its fingerprint, and each collection's version count. `y`: my last
   * session with you ended and nothing I asked of you is outstanding (I am synced with you).
   * `p`: I answer `pull`.
   */
  | { t: 'hello'; s: string; f: Uint8Array; c: Array<[string, number]>; y?: true; p?: true }
  /** One Negentropy message of a reconciliation of one collection. */
  | { t: 'neg'; s: string; c: string; m: Uint8Array }
  /** The ids of versions I want; `q` numbers the want. */
  | { t: 'want'; s: string; q: number; i: Uint8Array[] }
  /**
   * Asks for the versions of collection `c` past cursor `a` (from the start without it), in
   * the order of its sync set, a page at a time; `q` numbers it as a want. Spec 05 §8 "Pulling".
   */
  | { t: 'pull'; s: string; q: number; c: string; a?: Uint8Array }
  /** Versions: answering want `q`, or (without `q`) pushed because you lack them. */
  | { t: 'vers'; s: string; q?: number; v: Uint8Array[] }
  /** A version I took from you and will not keep, and why. */
  | { t: 'refuse'; s: string; i: Uint8Array; w: string }
  /** I am closing the connection, and why. */
  | { t: 'bye'; w: string }
  /** Asks for file `i`: its chunk list when `l`, and chunks `n` (at most 4). Spec 05 §16.6. */
  | { t: 'fwant'; s: string; q: number; i: Uint8Array; l: boolean; n: number[] }
  /** Answers `fwant` `q`: the list when asked and held, and each chunk asked, null if not held. */
  | { t: 'fdata'; s: string; q: number; l?: Uint8Array; c: Array<Uint8Array | null> };

/** Chunks one `fwant` may ask for: a peer serves at most this many at a time. */
export const MAX_CHUNKS_PER_REQUEST = 4;
/** Largest chunk list and sealed chunk a frame may carry (spec 05 §16.6). */
const MAX_LIST_FRAME_BYTES = 600 * 1024;
const MAX_CHUNK_FRAME_BYTES = 256 * 1024 + 40;

export function encodeMessage(message: Message): Uint8Array {
  const bytes = encodeCbor(message);
  if (bytes.length > MAX_FRAME_BYTES)
    throw new RangeError(`message of ${bytes.length} bytes is over the frame limit`);
  return bytes;
}

const bad = (why: string): never => {
  throw new MincaError('protocol', `bad message: ${why}`);
};
const text = (v: unknown, max: number, what: string): string =>
  typeof v === 'string' && v.length <= max ? v : bad(`${what} must be text of at most ${max}`);
const bytes = (v: unknown, max: number, what: string, exact?: number): Uint8Array =>
  v instanceof Uint8Array && v.length <= max && (exact === undefined || v.length === exact)
    ? v
    : bad(`${what} must be bytes`);
const space = (v: unknown): string =>
  typeof v === 'string' && SPACE_ID.test(v) ? v : bad('bad space id');
const list = (v: unknown, max: number, what: string): unknown[] =>
  Array.isArray(v) && v.length <= max ? v : bad(`${what} must be a list of at most ${max}`);
const uint = (v: unknown, what: string): number =>
  Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : bad(`${what} must be a uint`);
function exactKeys(m: Record<string, unknown>, keys: string[], optional: string[] = []): void {
  for (const k of Object.keys(m))
    if (!keys.includes(k) && !optional.includes(k)) bad(`unexpected field ${k.slice(0, 20)}`);
  for (const k of keys) if (!(k in m)) bad(`missing field ${k}`);
}

/** Decodes one message from a peer; anything off is `protocol` (or `malformed` for bad CBOR). */
export function decodeMessage(frame: Uint8Array): Message {
  const m = decodeStrict(frame, { maxBytes: MAX_FRAME_BYTES, maxDepth: 3 }) as Record<
    string,
    unknown
  >;
  if (m === null || typeof m !== 'object' || Array.isArray(m) || m instanceof Uint8Array)
    bad('not a map');
  switch (m.t) {
    case 'hi':
      exactKeys(m, ['t', 'v', 'd', 'n']);
      return {
        t: 'hi',
        v: uint(m.v, 'v'),
        d: text(m.d, 64, 'did'),
        n: bytes(m.n, 32, 'nonce', 32),
      };
    case 'auth':
      exactKeys(m, ['t', 'g'], ['c']);
      return {
        t: 'auth',
        g: bytes(m.g, 64, 'signature', 64),
        ...(m.c === undefined
          ? {}
          : {
              c: list(m.c, MAX_CHAIN, 'certificates').map((c) =>
                bytes(c, MAX_CERTIFICATE_BYTES, 'certificate'),
              ),
            }),
      };
    case 'spaces':
      exactKeys(m, ['t', 's'], ['a', 'p', 'm', 'r']);
      return {
        t: 'spaces',
        s: list(m.s, MAX_SPACES, 'spaces').map(space),
        ...(m.a === undefined
          ? {}
          : {
              a: list(m.a, 256, 'credentials').map((v) =>
                bytes(v, MAX_VERSION_BYTES, 'credential'),
              ),
            }),
        ...(m.p === undefined
          ? {}
          : {
              p: list(m.p, MAX_SPACES, 'access proofs').map((e) => {
                const [s, did, proof] = list(e, 3, 'access proof');
                return [space(s), text(did, 64, 'access DID'), bytes(proof, 64, 'proof', 64)] as [
                  string,
                  string,
                  Uint8Array,
                ];
              }),
            }),
        ...(m.m === undefined
          ? {}
          : { m: list(m.m, MAX_SPACES, 'probes').map((p) => bytes(p, 16, 'probe', 16)) }),
        ...(m.r === undefined
          ? {}
          : {
              r: list(m.r, MAX_REFUSALS, 'refusals').map((e) => {
                const [s, why] = list(e, 2, 'refusal');
                return [space(s), text(why, MAX_REFUSAL_REASON, 'reason')] as [string, string];
              }),
            }),
      };
    case 'hello':
      exactKeys(m, ['t', 's', 'f', 'c'], ['y', 'p']);
      if (m.y !== undefined && m.y !== true) bad('y must be true');
      if (m.p !== undefined && m.p !== true) bad('p must be true');
      return {
        t: 'hello',
        ...(m.y ? { y: true as const } : {}),
        ...(m.p ? { p: true as const } : {}),
        s: space(m.s),
        f: bytes(m.f, 16, 'fingerprint', 16),
        c: list(m.c, 4096, 'collections').map((e) => {
          const [name, count] = list(e, 2, 'collection entry');
          if (!isCollectionName(name)) bad('bad collection');
          return [name as string, uint(count, 'count')] as [string, number];
        }),
      };
    case 'neg':
      exactKeys(m, ['t', 's', 'c', 'm']);
      if (!isCollectionName(m.c)) bad('bad collection');
      return {
        t: 'neg',
        s: space(m.s),
        c: m.c as string,
        m: bytes(m.m, MAX_FRAME_BYTES, 'negentropy message'),
      };
    case 'want':
      exactKeys(m, ['t', 's', 'q', 'i']);
      return {
        t: 'want',
        s: space(m.s),
        q: uint(m.q, 'q'),
        i: list(m.i, MAX_IDS_PER_WANT, 'ids').map((id) => bytes(id, 32, 'id', 32)),
      };
    case 'pull':
      exactKeys(m, ['t', 's', 'q', 'c'], ['a']);
      if (!isCollectionName(m.c)) bad('bad collection');
      return {
        t: 'pull',
        s: space(m.s),
        q: uint(m.q, 'q'),
        c: m.c as string,
        ...(m.a === undefined ? {} : { a: bytes(m.a, CURSOR_BYTES, 'cursor', CURSOR_BYTES) }),
      };
    case 'vers':
      exactKeys(m, ['t', 's', 'v'], ['q']);
      return {
        t: 'vers',
        s: space(m.s),
        ...(m.q === undefined ? {} : { q: uint(m.q, 'q') }),
        v: list(m.v, MAX_VERSIONS_PER_MESSAGE, 'versions').map((v) =>
          bytes(v, MAX_VERSION_BYTES, 'version'),
        ),
      };
    case 'refuse':
      exactKeys(m, ['t', 's', 'i', 'w']);
      return {
        t: 'refuse',
        s: space(m.s),
        i: bytes(m.i, 32, 'id', 32),
        w: text(m.w, 500, 'reason'),
      };
    case 'bye':
      exactKeys(m, ['t', 'w']);
      return { t: 'bye', w: text(m.w, 500, 'reason') };
    case 'fwant':
      exactKeys(m, ['t', 's', 'q', 'i', 'l', 'n']);
      if (typeof m.l !== 'boolean') bad('l must be a boolean');
      return {
        t: 'fwant',
        s: space(m.s),
        q: uint(m.q, 'q'),
        i: bytes(m.i, 32, 'file id', 32),
        l: m.l as boolean,
        n: list(m.n, MAX_CHUNKS_PER_REQUEST, 'chunk numbers').map((n) => uint(n, 'chunk number')),
      };
    case 'fdata':
      exactKeys(m, ['t', 's', 'q', 'c'], ['l']);
      return {
        t: 'fdata',
        s: space(m.s),
        q: uint(m.q, 'q'),
        ...(m.l === undefined ? {} : { l: bytes(m.l, MAX_LIST_FRAME_BYTES, 'chunk list') }),
        c: list(m.c, MAX_CHUNKS_PER_REQUEST, 'chunks').map((c) =>
          c === null ? null : bytes(c, MAX_CHUNK_FRAME_BYTES, 'chunk'),
        ),
      };
    default:
      return bad(`unknown type ${JSON.stringify(String(m.t).slice(0, 20))}`);
  }
}

/**
 * The `hello` in `space` saying this side stands at `fingerprint` with `counts`, and, from a
 * starter, `synced`: once a session ended with nothing outstanding. This side answers pulls.
 */
export function helloOf(
  space: string,
  fingerprint: Uint8Array,
  counts: Array<[string, number]>,
  synced = false,
): Extract<Message, { t: 'hello' }> {
  return {
    t: 'hello',
    s: space,
    f: fingerprint,
    c: counts,
    ...(synced ? { y: true as const } : {}),
    p: true,
  };
}
