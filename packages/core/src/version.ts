/**
 * The version envelope: one immutable, signed, sealed write to a record.
 * Its id is SHA-256 of its deterministic CBOR encoding. Layout: spec 05 §3.
 */
import { assertBody, type BodyValue, MAX_BODY_BYTES } from './body.js';
import { compareBytes, equalBytes, fromHex, toHex, utf8 } from './bytes.js';
import { decodeStrict, encodeCbor } from './encoding.js';
import { MincaError } from './errors.js';
import { hashId, ID_BYTES, RECORD_ID, SPACE_ID } from './ids.js';
import { type SigningKey, verifySignature } from './keys.js';
import { isCollectionName } from './names.js';
import { open, SEAL_OVERHEAD, seal } from './seal.js';

export const VERSION_FORMAT = 1;
/** A version names at most this many files. */
export const MAX_FILES = 16;
/** A version supersedes at most this many others (the heads it replaces). */
export const MAX_SUPERSEDES = 64;
/** Largest encoded version. */
export const MAX_VERSION_BYTES = MAX_BODY_BYTES + SEAL_OVERHEAD + 8 * 1024;
const SIGNING_CONTEXT = utf8('minca/version/v1\n');

/** A version, decoded and verified. Ids are lowercase hex. */
export interface Version {
  id: string;
  /** The envelope's encoding, exactly as hashed. */
  bytes: Uint8Array;
  space: string;
  collection: string;
  record: string;
  supersedes: string[];
  timestamp: number;
  author: string;
  files: string[];
  /** The sealed body, or `null` for a tombstone (a delete). */
  sealedBody: Uint8Array | null;
}

/** What a new version says, before it is sealed and signed. */
export interface VersionDraft {
  space: string;
  collection: string;
  record: string;
  supersedes: readonly string[];
  timestamp: number;
  files: readonly string[];
  /** The body, or `null` for a tombstone. */
  body: BodyValue | null;
}

interface Envelope {
  v: number;
  s: string;
  c: string;
  r: string;
  p: Uint8Array[];
  t: number;
  a: string;
  f: Uint8Array[];
  b: Uint8Array | null;
  g?: Uint8Array;
}

const sortedIds = (hexes: readonly string[]): Uint8Array[] =>
  [...new Set(hexes)].map(fromHex).sort(compareBytes);

/** Binds a sealed body to its place, so it can't be moved to another record or space. */
function bodyAad(e: Pick<Envelope, 's' | 'c' | 'r' | 't' | 'a'>): Uint8Array {
  return encodeCbor(['minca/body/v1', e.s, e.c, e.r, e.t, e.a]);
}

/** Seals, signs and encodes a new version. */
export async function createVersion(
  draft: VersionDraft,
  spaceKey: Uint8Array,
  key: SigningKey,
): Promise<Version> {
  if (draft.files.length > MAX_FILES) {
    throw new MincaError(
      'too_large',
      `a record names at most ${MAX_FILES} files, not ${draft.files.length}`,
    );
  }
  const header = {
    v: VERSION_FORMAT,
    s: draft.space,
    c: draft.collection,
    r: draft.record,
    p: sortedIds(draft.supersedes),
    t: draft.timestamp,
    a: key.did,
    f: sortedIds(draft.files),
  };
  let b: Uint8Array | null = null;
  if (draft.body !== null) {
    assertBody(draft.body);
    const plain = encodeCbor(draft.body);
    if (plain.length > MAX_BODY_BYTES) {
      throw new MincaError(
        'too_large',
        `body is ${plain.length} bytes, over ${MAX_BODY_BYTES}; put large things in a file`,
      );
    }
    b = seal(spaceKey, plain, bodyAad(header));
  }
  const unsigned: Envelope = { ...header, b };
  const g = await key.sign(signedBytes(unsigned));
  // Built and signed here, so the checks made of outside bytes can be skipped.
  return decodeVersion(encodeCbor({ ...unsigned, g }), { trusted: true });
}

function signedBytes(unsigned: Envelope): Uint8Array {
  const encoded = encodeCbor(unsigned);
  const out = new Uint8Array(SIGNING_CONTEXT.length + encoded.length);
  out.set(SIGNING_CONTEXT);
  out.set(encoded, SIGNING_CONTEXT.length);
  return out;
}

const invalid = (why: string): never => {
  throw new MincaError('invalid_version', `invalid version: ${why}`);
};

function idList(value: unknown, max: number, what: string): string[] {
  if (!Array.isArray(value) || value.length > max)
    invalid(`${what} must be a list of at most ${max} ids`);
  const ids = value as unknown[];
  ids.forEach((id, i) => {
    if (!(id instanceof Uint8Array) || id.length !== ID_BYTES) invalid(`${what} holds a bad id`);
    if (i > 0 && compareBytes(ids[i - 1] as Uint8Array, id as Uint8Array) >= 0) {
      invalid(`${what} must be sorted and unique`);
    }
  });
  return (ids as Uint8Array[]).map(toHex);
}

/**
 * Decodes a version: strict CBOR in its one canonical encoding, every field well formed.
 * `malformed` or `invalid_version` otherwise. It checks no signature (see {@link verifyVersion}; the intake does both for what comes from outside),
 * opens no body (that needs the space key) and judges no authorization. `trusted: true` skips
 * the canonical-encoding check too, for bytes this node checked before it stored them.
 */
export function decodeVersion(bytes: Uint8Array, options: { trusted?: boolean } = {}): Version {
  const e = decodeStrict(bytes, { maxBytes: MAX_VERSION_BYTES, maxDepth: 3 }) as Envelope;
  if (e === null || typeof e !== 'object' || Array.isArray(e)) invalid('not a map');
  const keys = Object.keys(e).sort().join(',');
  if (keys !== 'a,b,c,f,g,p,r,s,t,v') invalid(`unexpected fields ${keys}`);
  if (e.v !== VERSION_FORMAT) invalid(`unknown format ${String(e.v)}`);
  if (typeof e.s !== 'string' || !SPACE_ID.test(e.s)) invalid('bad space id');
  if (!isCollectionName(e.c)) invalid('bad collection');
  if (typeof e.r !== 'string' || !RECORD_ID.test(e.r)) invalid('bad record id');
  if (!Number.isSafeInteger(e.t) || e.t < 0) invalid('bad timestamp');
  if (typeof e.a !== 'string' || e.a.length > 64) invalid('bad author');
  if (!(e.b === null || e.b instanceof Uint8Array)) invalid('bad body');
  if (!(e.g instanceof Uint8Array) || e.g.length !== 64) invalid('bad signature');
  const supersedes = idList(e.p, MAX_SUPERSEDES, 'supersedes');
  const files = idList(e.f, MAX_FILES, 'files');
  // One encoding per value, so one id per version: re-encoding must give the same bytes.
  if (!options.trusted && !equalBytes(encodeCbor(e), bytes)) invalid('not in canonical encoding');
  return {
    id: toHex(hashId(bytes)),
    bytes,
    space: e.s,
    collection: e.c,
    record: e.r,
    supersedes,
    timestamp: e.t,
    author: e.a,
    files,
    sealedBody: e.b,
  };
}

/** Checks the author's signature of a decoded version; `invalid_version` when it fails. */
export async function verifyVersion(version: Version): Promise<void> {
  const { g, ...unsigned } = decodeStrict(version.bytes, {
    maxBytes: MAX_VERSION_BYTES,
    maxDepth: 3,
  }) as Envelope;
  if (!(await verifySignature(version.author, signedBytes(unsigned), g!)))
    invalid('signature does not verify');
}

/** Opens a version's body with the space key. `invalid_version` if it won't open or decode. */
export function openBody(version: Version, spaceKey: Uint8Array): BodyValue | null {
  if (version.sealedBody === null) return null;
  const aad = bodyAad({
    s: version.space,
    c: version.collection,
    r: version.record,
    t: version.timestamp,
    a: version.author,
  });
  const plain = open(spaceKey, version.sealedBody, aad);
  let body: unknown;
  try {
    body = decodeStrict(plain, { maxBytes: MAX_BODY_BYTES, maxDepth: 33 });
    assertBody(body);
  } catch (cause) {
    throw new MincaError('invalid_version', 'version body does not decode', { cause });
  }
  return body;
}

/**
 * Opens a version's body with whichever of a space's keys sealed it (spec 05 §7.4: a space key
 * changes when a member leaves), trying the newest first. `invalid_version` if none opens it.
 */
export function openWithKeys(version: Version, keys: readonly Uint8Array[]): BodyValue | null {
  let failure: unknown;
  for (let i = keys.length - 1; i >= 0; i--) {
    try {
      return openBody(version, keys[i]!);
    } catch (error) {
      failure = error;
    }
  }
  throw failure ?? new MincaError('invalid_version', 'no key to open the version with');
}
