/**
 * The version: one immutable, signed, sealed write to a record. Its id is SHA-256 of its
 * envelope's bytes (written and read in `envelope.ts`). Layout: spec 05 §3.
 */
import { base32nopad } from '@scure/base';
import { type BatchLeaf, leafHash, merkleTree, rootsOf } from './batch-tree.js';
import { assertBody, type BodyValue, MAX_BODY_BYTES } from './body.js';
import { compareBytes, fromHex, toHex, utf8 } from './bytes.js';
import { encodeCbor } from './encoding.js';
import {
  type BatchProof,
  ENVELOPE_FORMAT,
  encodeSigned,
  type ParsedEnvelope,
  parseEnvelope,
  unsignedAfter,
} from './envelope.js';
import { MincaError } from './errors.js';
import { hashId, RECORD_ID, SPACE_ID } from './ids.js';
import { didFromPublicKey, type SigningKey, verifyEd25519 } from './keys.js';
import { isCollectionName } from './names.js';
import { SEAL_OVERHEAD, saltedLength, sealSaltedInto } from './seal.js';
import { bodyAad } from './version-open.js';

export const VERSION_FORMAT = ENVELOPE_FORMAT;
/** A version names at most this many files. */
export const MAX_FILES = 16;
/** A version supersedes at most this many others (the heads it replaces). */
export const MAX_SUPERSEDES = 64;
/** Versions one batch signature covers at most (spec 05 §3.6). */
export const MAX_BATCH = 65_536;
/** Versions sealed before their signatures are asked for, when many are made at once. */
const SEAL_CHUNK = 512;
/** Largest encoded version. */
export const MAX_VERSION_BYTES = MAX_BODY_BYTES + SEAL_OVERHEAD + 8 * 1024;
const SIGNING_CONTEXT = utf8('minca/version/v2\n');
const BATCH_CONTEXT = utf8('minca/batch/v2\n');
const LIMITS = {
  maxSupersedes: MAX_SUPERSEDES,
  maxFiles: MAX_FILES,
  maxCollection: 263,
  maxRecord: 64,
  maxBatch: MAX_BATCH,
};

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

/** How {@link createVersions} signs. */
export interface SignOptions {
  /**
   * Versions under one signature: 1 (the default) signs each on its own, the signatures made
   * at once; more signs the root of each run of that many (a batch signature, spec 05 §3.6),
   * which costs each version a path of about 33 bytes per doubling.
   */
  perSignature?: number;
}

/**
 * Strings for bytes that repeat in every version (a space's id, an author's DID), so decoding
 * them costs a lookup. Cleared when full: a node meets few spaces and authors at a time.
 */
class NameCache {
  readonly #names = new Map<string, string>();
  constructor(readonly make: (bytes: Uint8Array) => string) {}
  of(bytes: Uint8Array): string {
    const key = String.fromCharCode.apply(null, bytes as never);
    let name = this.#names.get(key);
    if (name === undefined) {
      if (this.#names.size >= 4096) this.#names.clear();
      this.#names.set(key, (name = this.make(bytes)));
    }
    return name;
  }
}
const spaceNames = new NameCache((b) => base32nopad.encode(b).toLowerCase());
const authorNames = new NameCache(didFromPublicKey);
const spaceIds = new Map<string, Uint8Array>();

/** A space id's 16 bytes; `invalid_input` for a string that is not one. */
function spaceBytes(space: string): Uint8Array {
  let bytes = spaceIds.get(space);
  if (bytes) return bytes;
  if (typeof space !== 'string' || !SPACE_ID.test(space))
    throw new MincaError('invalid_input', 'not a space id');
  try {
    bytes = base32nopad.decode(space.toUpperCase());
  } catch (cause) {
    throw new MincaError('invalid_input', 'not a space id', { cause });
  }
  if (spaceIds.size >= 4096) spaceIds.clear();
  spaceIds.set(space, bytes);
  return bytes;
}

const sortedIds = (hexes: readonly string[]): Uint8Array[] =>
  hexes.length === 0 ? [] : [...new Set(hexes)].map(fromHex).sort(compareBytes);

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

/** A version made here before its signature: what it says, and the bytes signed. */
interface Prepared {
  /** What its own signature covers: the signing context, then `unsigned`. */
  message: Uint8Array;
  /** The envelope up to its signature, sealed (a view of `message`). */
  unsigned: Uint8Array;
  /** The body's plaintext, `null` for a tombstone. */
  plain: Uint8Array | null;
  /** Its fields, as decoding its bytes would give them. */
  fields: Omit<Version, 'id' | 'bytes' | 'sealedBody'>;
  /** Bytes of the sealed body, which ends `unsigned`; -1 for a tombstone. */
  bodyBytes: number;
}

/** Seals a draft and encodes it up to its signature. */
function prepare(draft: VersionDraft, spaceKey: Uint8Array, key: SigningKey): Prepared {
  if (draft.files.length > MAX_FILES) {
    throw new MincaError(
      'too_large',
      `a record names at most ${MAX_FILES} files, not ${draft.files.length}`,
    );
  }
  if (!isCollectionName(draft.collection))
    throw new MincaError('invalid_name', 'bad collection name');
  if (typeof draft.record !== 'string' || !RECORD_ID.test(draft.record))
    throw new MincaError('invalid_name', 'bad record id');
  if (!Number.isSafeInteger(draft.timestamp) || draft.timestamp < 0)
    throw new MincaError('invalid_input', 'bad timestamp');
  const supersedes = sortedIds(draft.supersedes);
  if (supersedes.length > MAX_SUPERSEDES)
    throw new MincaError('too_large', `a version supersedes at most ${MAX_SUPERSEDES} others`);
  const files = sortedIds(draft.files);
  const space = spaceBytes(draft.space);
  let plain: Uint8Array | null = null;
  if (draft.body !== null) {
    assertBody(draft.body);
    plain = encodeCbor(draft.body);
    if (plain.length > MAX_BODY_BYTES) {
      throw new MincaError(
        'too_large',
        `body is ${plain.length} bytes, over ${MAX_BODY_BYTES}; put large things in a file`,
      );
    }
  }
  // Built in one buffer, the body sealed in place: each buffer and copy more costs a put.
  const bodyBytes = plain === null ? -1 : saltedLength(plain.length);
  const {
    bytes: message,
    header,
    bodyAt,
  } = unsignedAfter(
    SIGNING_CONTEXT,
    {
      space,
      collection: draft.collection,
      record: draft.record,
      supersedes,
      timestamp: draft.timestamp,
      author: key.publicKey,
      files,
    },
    bodyBytes,
  );
  if (plain !== null) sealSaltedInto(spaceKey, plain, bodyAad(header), message, bodyAt);
  // The fields as decodeVersion reads them back (the space id checked lowercase base32, ids
  // sorted lowercase hex): the version test checks the two agree.
  const fields = {
    space: draft.space,
    collection: draft.collection,
    record: draft.record,
    supersedes: supersedes.map(toHex),
    timestamp: draft.timestamp,
    author: key.did,
    files: files.map(toHex),
  };
  const unsigned = message.subarray(SIGNING_CONTEXT.length);
  return { message, unsigned, plain, fields, bodyBytes };
}

/** Seals, signs and encodes a new version. */
export async function createVersion(
  draft: VersionDraft,
  spaceKey: Uint8Array,
  key: SigningKey,
): Promise<Version> {
  return (await sealVersions([draft], spaceKey, key))[0]!.version;
}

/**
 * Seals, signs and encodes several new versions at once: each signed on its own, the
 * signatures made together (WebCrypto makes them on every core), or under batch signatures.
 */
export async function createVersions(
  drafts: readonly VersionDraft[],
  spaceKey: Uint8Array,
  key: SigningKey,
  options: SignOptions = {},
): Promise<Version[]> {
  return (await sealVersions(drafts, spaceKey, key, options)).map((s) => s.version);
}

/** A version just made, and its body's plaintext (CBOR; `null` for a tombstone). */
export interface SealedVersion {
  version: Version;
  plain: Uint8Array | null;
}

/**
 * What {@link createVersions} does, giving each body's plaintext too: a writer gives back what
 * it wrote without opening it again.
 */
export async function sealVersions(
  drafts: readonly VersionDraft[],
  spaceKey: Uint8Array,
  key: SigningKey,
  options: SignOptions = {},
): Promise<SealedVersion[]> {
  const per = Math.min(options.perSignature ?? 1, MAX_BATCH);
  if (!(per >= 1)) throw new RangeError('perSignature must be at least 1');
  if (drafts.length === 1) {
    // One version: its own signature, without the batch's bookkeeping.
    const prepared = prepare(drafts[0]!, spaceKey, key);
    const g = await key.sign(prepared.message);
    return [{ version: signed(prepared, g), plain: prepared.plain }];
  }
  const out: SealedVersion[] = new Array(drafts.length);
  const signing: Promise<void>[] = [];
  // Sealed a chunk at a time (whole runs), each chunk's signatures made (on other threads, where
  // the platform has them) while the next chunk is sealed.
  const chunk = Math.ceil(SEAL_CHUNK / per) * per;
  for (let start = 0; start < drafts.length; start += chunk) {
    const prepared = drafts.slice(start, start + chunk).map((d) => prepare(d, spaceKey, key));
    const messages: Uint8Array[] = [];
    const finish: Array<(signature: Uint8Array) => void> = [];
    for (let at = 0; at < prepared.length; at += per) {
      const run = prepared.slice(at, at + per);
      const first = start + at;
      if (run.length === 1) {
        const one = run[0]!;
        messages.push(one.message);
        finish.push((g) => {
          out[first] = { version: signed(one, g), plain: one.plain };
        });
        continue;
      }
      const { root, paths } = merkleTree(run.map((p) => leafOf(p.unsigned)));
      messages.push(rootMessage(run.length, root));
      finish.push((signature) =>
        run.forEach((p, i) => {
          const proof = { signature, size: run.length, index: i, path: paths[i]! };
          out[first + i] = { version: signed(p, proof), plain: p.plain };
        }),
      );
    }
    const done = key.signMany(messages).then((signatures) => {
      if (signatures.length !== messages.length)
        throw new MincaError('unavailable', 'signatures missing');
      for (let i = 0; i < finish.length; i++) finish[i]!(signatures[i]!);
    });
    // A later chunk failing to seal leaves this one's signing unawaited: it must not go unhandled.
    done.catch(() => undefined);
    signing.push(done);
  }
  await Promise.all(signing);
  return out;
}

/** Built and signed here: its fields are known, so its bytes are not read back. */
function signed(p: Prepared, proof: Uint8Array | BatchProof): Version {
  const bytes = encodeSigned(p.unsigned, proof);
  const end = p.unsigned.length;
  const f = p.fields;
  // The same fields in the same order as decodeVersion's: one shape for every version.
  return {
    id: toHex(hashId(bytes)),
    bytes,
    space: f.space,
    collection: f.collection,
    record: f.record,
    supersedes: f.supersedes,
    timestamp: f.timestamp,
    author: f.author,
    files: f.files,
    sealedBody: p.bodyBytes < 0 ? null : bytes.subarray(end - p.bodyBytes, end),
  };
}

/** A version's leaf in a batch: SHA-256(0x00 ‖ what its own signature would cover). */
const leafOf = (unsigned: Uint8Array) => leafHash(unsigned, SIGNING_CONTEXT);

/** What a batch's signature covers: its size and root. */
function rootMessage(size: number, root: Uint8Array): Uint8Array {
  const out = new Uint8Array(BATCH_CONTEXT.length + 4 + root.length);
  out.set(BATCH_CONTEXT);
  new DataView(out.buffer).setUint32(BATCH_CONTEXT.length, size);
  out.set(root, BATCH_CONTEXT.length + 4);
  return out;
}

const invalid = (why: string): never => {
  throw new MincaError('invalid_version', `invalid version: ${why}`);
};

function parse(bytes: Uint8Array): ParsedEnvelope {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('bytes must be a Uint8Array');
  if (bytes.length > MAX_VERSION_BYTES)
    throw new MincaError('malformed', `a version of ${bytes.length} bytes is over the limit`);
  return parseEnvelope(bytes, LIMITS);
}

/**
 * Decodes a version: its envelope in its one canonical encoding, every field well formed.
 * `malformed` or `invalid_version` otherwise. It checks no signature (see {@link verifyVersion};
 * the intake does both for what comes from outside), opens no body (that needs the space key)
 * and judges no authorization. `trusted: true` skips the grammar checks, for bytes this node
 * checked before it stored them, and `id` the hashing, for bytes known to have that id.
 */
export function decodeVersion(
  bytes: Uint8Array,
  options: { trusted?: boolean; id?: string } = {},
): Version {
  const e = parse(bytes);
  if (!options.trusted) {
    if (!isCollectionName(e.collection)) invalid('bad collection');
    if (!RECORD_ID.test(e.record)) invalid('bad record id');
  }
  const version: Version = {
    id: options.id ?? toHex(hashId(bytes)),
    bytes,
    space: spaceNames.of(e.space),
    collection: e.collection,
    record: e.record,
    supersedes: e.supersedes.map(toHex),
    timestamp: e.timestamp,
    author: authorNames.of(e.author),
    files: e.files.map(toHex),
    sealedBody: e.body,
  };
  if (!options.trusted) proofs.set(version, e);
  return version;
}

/**
 * What checking a version's signature reads of its envelope, kept as {@link decodeVersion}
 * parsed it from outside, so the intake parses a version once, not again to check it.
 */
const proofs = new WeakMap<Version, Pick<ParsedEnvelope, 'author' | 'proofStart' | 'proof'>>();

/** Batch roots whose signature was checked (or is being), by author, signature and root. */
const roots = new Map<string, Promise<boolean>>();
const MAX_ROOTS = 4096;
const latin1 = (bytes: Uint8Array) => String.fromCharCode.apply(null, bytes as never);

/** Checks the author's signature of a decoded version; `invalid_version` when it fails. */
export function verifyVersion(version: Version): Promise<void> {
  return verifyVersions([version]);
}

/**
 * Checks the authors' signatures of decoded versions, all at once; `invalid_version` when one
 * fails. The versions of a batch signature that come together share its tree (`rootsOf`) and
 * one check of its signature.
 */
export async function verifyVersions(versions: readonly Version[]): Promise<void> {
  const single: Array<[author: Uint8Array, message: Uint8Array, signature: Uint8Array]> = [];
  const batches = new Map<string, { author: Uint8Array; proof: BatchProof; leaves: BatchLeaf[] }>();
  for (const version of versions) {
    const e = proofs.get(version) ?? parse(version.bytes);
    const signed = version.bytes.subarray(0, e.proofStart);
    if (e.proof instanceof Uint8Array) {
      single.push([e.author, concat(SIGNING_CONTEXT, signed), e.proof]);
      continue;
    }
    const { signature, size, index, path } = e.proof;
    const key = latin1(e.author) + latin1(signature) + size;
    let batch = batches.get(key);
    if (!batch) batches.set(key, (batch = { author: e.author, proof: e.proof, leaves: [] }));
    batch.leaves.push({ leaf: leafOf(signed), index, path });
  }
  // Every path is followed before any check starts: a bad one throws with nothing left running.
  const batchChecks: Array<[author: Uint8Array, proof: BatchProof, root: Uint8Array]> = [];
  for (const { author, proof, leaves } of batches.values()) {
    // A whole batch's versions all reach the same root object: checked once, not once each.
    for (const root of new Set(rootsOf(leaves, proof.size))) {
      if (!root) invalid('its batch path does not lead to a root');
      batchChecks.push([author, proof, root!]);
    }
  }
  const checks = [
    ...single.map(([author, message, signature]) => verifyEd25519(author, message, signature)),
    ...batchChecks.map(([author, proof, root]) => rootChecked(author, proof, root)),
  ];
  if (!(await Promise.all(checks)).every(Boolean)) invalid('signature does not verify');
}

/** Whether the author signed batch root `root`: one check per batch, remembered. */
function rootChecked(author: Uint8Array, proof: BatchProof, root: Uint8Array): Promise<boolean> {
  const { signature, size } = proof;
  const key = latin1(author) + latin1(signature) + latin1(root) + size;
  let check = roots.get(key);
  if (!check) {
    if (roots.size >= MAX_ROOTS) roots.delete(roots.keys().next().value!);
    check = verifyEd25519(author, rootMessage(size, root), signature);
    roots.set(key, check);
  }
  return check;
}

// Opening bodies lives beside, in its own module; these names stay importable from here.
export {
  decodeBody,
  openBody,
  openStored,
  openStoredMany,
  openWithKeys,
} from './version-open.js';
