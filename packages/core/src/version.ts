/**
 * The version: one immutable, signed, sealed write to a record. Its id is SHA-256 of its
 * envelope's bytes (written and read in `envelope.ts`). Layout: spec 05 §3. Here: decoding a
 * version and checking its signature, the one way anything from outside becomes a `Version`.
 * Making one is `version-make.ts`; opening its body, `version-open.ts`.
 */
import { base32nopad } from '@scure/base';
import { type BatchLeaf, rootsOf } from './batch-tree.js';
import { equalBytes, latin1, toHex } from './bytes.js';
import { type BatchProof, type ParsedEnvelope, parseEnvelope } from './envelope.js';
import { MincaError } from './errors.js';
import { hashIdHex, RECORD_ID } from './ids.js';
import { didFromPublicKey, type SignatureCheck, verifyEd25519, verifyEd25519Many } from './keys.js';
import { isCollectionName } from './names.js';
import {
  LIMITS,
  leafOf,
  MAX_VERSION_BYTES,
  rootMessage,
  SIGNING_CONTEXT,
  type Version,
} from './version-format.js';

/**
 * Strings for bytes that repeat in every version (a space's id, an author's DID), so decoding
 * them costs a lookup. Cleared when full: a node meets few spaces and authors at a time.
 */
class NameCache {
  readonly #names = new Map<string, string>();
  /** The bytes last named (a copy: a view would keep a whole message alive) and their name. */
  #last: { bytes: Uint8Array; name: string } | undefined;
  constructor(readonly make: (bytes: Uint8Array) => string) {}
  of(bytes: Uint8Array): string {
    // A message's versions are mostly of one space and author: compared, not made a key.
    const last = this.#last;
    if (last && equalBytes(bytes, last.bytes)) return last.name;
    const key = latin1(bytes);
    let name = this.#names.get(key);
    if (name === undefined) {
      if (this.#names.size >= 4096) this.#names.clear();
      this.#names.set(key, (name = this.make(bytes)));
    }
    this.#last = { bytes: bytes.slice(), name };
    return name;
  }
}
const spaceNames = new NameCache((b) => base32nopad.encode(b).toLowerCase());
const authorNames = new NameCache(didFromPublicKey);
/**
 * `checks` of versions' own signatures, each message (an envelope up to its signature) after
 * the signing context, as it is signed. The messages are views of one buffer: a buffer each
 * lived outside the heap until a collection found it.
 */
function withContext(checks: readonly SignatureCheck[]): SignatureCheck[] {
  let size = 0;
  for (const c of checks) size += SIGNING_CONTEXT.length + c.message.length;
  const all = new Uint8Array(size);
  let at = 0;
  return checks.map(({ publicKey, message, signature }) => {
    const start = at;
    all.set(SIGNING_CONTEXT, at);
    all.set(message, at + SIGNING_CONTEXT.length);
    at += SIGNING_CONTEXT.length + message.length;
    return { publicKey, message: all.subarray(start, at), signature };
  });
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
    id: options.id ?? hashIdHex(bytes),
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
 * parsed it from outside, so the intake parses a version once, not again to check it. Taken out
 * as the check starts: kept any longer, these views (a batch proof's path is one per level)
 * outlive the young generation with the version, and a joining device's heap grew by a quarter.
 */
const proofs = new WeakMap<Version, Pick<ParsedEnvelope, 'author' | 'proofStart' | 'proof'>>();

/** Batch roots whose signature was checked (or is being), by author, signature and root. */
const roots = new Map<string, Promise<boolean>>();
const MAX_ROOTS = 4096;

/** The versions of one batch signature among those being checked. */
interface Batch {
  author: Uint8Array;
  proof: BatchProof;
  leaves: BatchLeaf[];
}

/** Whether `author`'s batch proof `proof` is of `batch`: same author, signature and size. */
function sameBatch(batch: Batch, author: Uint8Array, proof: BatchProof): boolean {
  return (
    batch.proof.size === proof.size &&
    equalBytes(batch.proof.signature, proof.signature) &&
    equalBytes(batch.author, author)
  );
}

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
  const single: SignatureCheck[] = [];
  const batches = new Map<string, Batch>();
  let last: Batch | undefined;
  for (const version of versions) {
    const e = proofs.get(version) ?? parse(version.bytes);
    proofs.delete(version);
    const signed = version.bytes.subarray(0, e.proofStart);
    if (e.proof instanceof Uint8Array) {
      single.push({ publicKey: e.author, message: signed, signature: e.proof });
      continue;
    }
    const { signature, size, index, path } = e.proof;
    // A batch's versions come one after another: the one before's batch, if it is this one,
    // is found without making a key of each version's signature.
    let batch = last && sameBatch(last, e.author, e.proof) ? last : undefined;
    if (!batch) {
      const key = latin1(e.author) + latin1(signature) + size;
      batch = batches.get(key);
      if (!batch) batches.set(key, (batch = { author: e.author, proof: e.proof, leaves: [] }));
    }
    batch.leaves.push({ leaf: leafOf(signed), index, path });
    last = batch;
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
    // A message's own signatures in one call: not a promise each, held until all are answered.
    verifyEd25519Many(withContext(single)).then((oks) => oks.every(Boolean)),
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

// What a version is, making versions and opening bodies live beside, in modules of their own;
// these names stay importable from here.
export {
  MAX_BATCH,
  MAX_FILES,
  MAX_SUPERSEDES,
  MAX_VERSION_BYTES,
  VERSION_FORMAT,
  type Version,
} from './version-format.js';
export {
  createVersion,
  createVersions,
  type SealedVersion,
  type SignOptions,
  sealVersions,
  type VersionDraft,
} from './version-make.js';
export {
  decodeBody,
  openBody,
  openStored,
  openStoredMany,
  openWithKeys,
} from './version-open.js';
