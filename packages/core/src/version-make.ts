/**
 * Making versions: a draft sealed under the space key, encoded up to its signature and signed,
 * on its own or with many others under one batch signature (spec 05 §3.6).
 */
import { base32nopad } from '@scure/base';
import { merkleTree } from './batch-tree.js';
import { assertBody, type BodyValue, copyBody, MAX_BODY_BYTES } from './body.js';
import { compareBytes, fromHex, toHex } from './bytes.js';
import { encodeCbor } from './encoding.js';
import { type BatchProof, encodeSigned, unsignedAfter } from './envelope.js';
import { MincaError } from './errors.js';
import { hashIdHex, RECORD_ID, SPACE_ID } from './ids.js';
import type { SigningKey } from './keys.js';
import { isCollectionName } from './names.js';
import { saltedLength, sealSaltedInto } from './seal.js';
import {
  leafOf,
  MAX_BATCH,
  MAX_FILES,
  MAX_SUPERSEDES,
  rootMessage,
  SIGNING_CONTEXT,
  type Version,
} from './version-format.js';
import { bodyAad } from './version-open.js';
import { XChaChaSealings } from './xchacha-many.js';

/** Versions sealed before their signatures are asked for, when many are made at once. */
const SEAL_CHUNK = 512;

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

/** A version made here before its signature: what it says, and the bytes signed. */
interface Prepared {
  /** What its own signature covers: the signing context, then `unsigned`. */
  message: Uint8Array;
  /** The envelope up to its signature, sealed (a view of `message`). */
  unsigned: Uint8Array;
  /** The body as a reader decodes it ({@link copyBody}), `null` for a tombstone. */
  body: BodyValue | null;
  /** Its fields, as decoding its bytes would give them. */
  fields: Omit<Version, 'id' | 'bytes' | 'sealedBody'>;
  /** Bytes of the sealed body, which ends `unsigned`; -1 for a tombstone. */
  bodyBytes: number;
}

/**
 * Seals a draft and encodes it up to its signature; with `sealings`, its body is sealed when
 * they are, with the others'.
 */
function prepare(
  draft: VersionDraft,
  spaceKey: Uint8Array,
  key: SigningKey,
  sealings?: XChaChaSealings,
): Prepared {
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
  let body: BodyValue | null = null;
  if (draft.body !== null) {
    assertBody(draft.body);
    plain = encodeCbor(draft.body);
    // Copied as encoded, now: the caller may change its value once this write is under way.
    body = copyBody(draft.body);
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
  if (plain !== null) sealSaltedInto(spaceKey, plain, bodyAad(header), message, bodyAt, sealings);
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
  return { message, unsigned, body, fields, bodyBytes };
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

/** A version just made, and its body as a reader decodes it (`null` for a tombstone). */
export interface SealedVersion {
  version: Version;
  body: BodyValue | null;
}

/**
 * What {@link createVersions} does, giving each body too: a writer gives back what it wrote
 * without opening and decoding it again.
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
    return [{ version: signed(prepared, g), body: prepared.body }];
  }
  const out: SealedVersion[] = new Array(drafts.length);
  const signing: Promise<void>[] = [];
  // Made a chunk at a time (whole runs): each chunk's signatures made (on other threads, where
  // the platform has them) while the next chunk is encoded. Under batch signatures those threads
  // sign little, so they seal the bodies too (where the platform seals many at once); versions
  // signed each on their own keep them busy signing, so their bodies are sealed here meanwhile.
  const chunk = Math.ceil(SEAL_CHUNK / per) * per;
  for (let start = 0; start < drafts.length; start += chunk) {
    const part = drafts.slice(start, start + chunk);
    const sealings = per > 1 ? new XChaChaSealings(part.length) : undefined;
    let prepared: Prepared[];
    try {
      prepared = part.map((d) => prepare(d, spaceKey, key, sealings));
    } catch (error) {
      sealings?.discard(); // A draft refused: the subkeys made for the others are wiped.
      throw error;
    }
    // Its signing asked for now, not a turn later: the threads sign while the next is encoded.
    const done = sealings
      ? sealings.seal().then(() => signChunk(prepared, per, key, start, out))
      : signChunk(prepared, per, key, start, out);
    // A later chunk failing to seal leaves this one's signing unawaited: it must not go unhandled.
    done.catch(() => undefined);
    signing.push(done);
  }
  await Promise.all(signing);
  return out;
}

/**
 * Signs a chunk of sealed versions, each on its own or in runs of `per` under a batch
 * signature, putting them in `out` from `start`.
 */
async function signChunk(
  prepared: readonly Prepared[],
  per: number,
  key: SigningKey,
  start: number,
  out: SealedVersion[],
): Promise<void> {
  const messages: Uint8Array[] = [];
  const finish: Array<(signature: Uint8Array) => void> = [];
  for (let at = 0; at < prepared.length; at += per) {
    const run = prepared.slice(at, at + per);
    const first = start + at;
    if (run.length === 1) {
      const one = run[0]!;
      messages.push(one.message);
      finish.push((g) => {
        out[first] = { version: signed(one, g), body: one.body };
      });
      continue;
    }
    const { root, paths } = merkleTree(run.map((p) => leafOf(p.unsigned)));
    messages.push(rootMessage(run.length, root));
    finish.push((signature) =>
      run.forEach((p, i) => {
        const proof = { signature, size: run.length, index: i, path: paths[i]! };
        out[first + i] = { version: signed(p, proof), body: p.body };
      }),
    );
  }
  const signatures = await key.signMany(messages);
  if (signatures.length !== messages.length)
    throw new MincaError('unavailable', 'signatures missing');
  for (let i = 0; i < finish.length; i++) finish[i]!(signatures[i]!);
}

/** Built and signed here: its fields are known, so its bytes are not read back. */
function signed(p: Prepared, proof: Uint8Array | BatchProof): Version {
  const bytes = encodeSigned(p.unsigned, proof);
  const end = p.unsigned.length;
  const f = p.fields;
  // The same fields in the same order as decodeVersion's: one shape for every version.
  return {
    id: hashIdHex(bytes),
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
