/**
 * The version envelope's bytes (spec 05 §3.1): a CBOR array of ten items, each of one fixed
 * type. With one type per item, the deterministic encoding (§2) is every head in its shortest
 * form, so the envelope is written and read here by hand: reading checks each head as it goes,
 * and nothing is encoded twice to compare. The signature and the body's seal cover slices of
 * these bytes (§3.3, §3.4), found by {@link parseEnvelope}.
 */
import { latin1 } from './bytes.js';
import { MincaError } from './errors.js';

/** The format this code writes and reads (the `v` item). */
export const ENVELOPE_FORMAT = 2;
/** Bytes of a space id, an author's public key, and an id in `p` or `f`. */
export const SPACE_BYTES = 16;
export const AUTHOR_BYTES = 32;
const ID_LENGTH = 32;
export const SIGNATURE_BYTES = 64;
const ITEMS = 10;

const UINT = 0;
const BYTES = 2;
const TEXT = 3;
const ARRAY = 4;
const NULL = 0xf6;

/** The clear fields of an envelope, in their encoded forms. */
export interface EnvelopeHeader {
  space: Uint8Array;
  collection: string;
  record: string;
  /** Sorted and unique. */
  supersedes: readonly Uint8Array[];
  timestamp: number;
  author: Uint8Array;
  /** Sorted and unique. */
  files: readonly Uint8Array[];
}

/** A batch signature's proof (spec 05 §3.6): the root's signature and this version's path. */
export interface BatchProof {
  signature: Uint8Array;
  /** Versions under the root. */
  size: number;
  /** This version's place among them. */
  index: number;
  /** Sibling hashes from this version's leaf up to the root. */
  path: readonly Uint8Array[];
}

/** An envelope read by {@link parseEnvelope}: its fields, and where its parts lie. */
export interface ParsedEnvelope extends EnvelopeHeader {
  /** The sealed body (a view into the bytes), or `null` for a tombstone. */
  body: Uint8Array | null;
  /** Where the body's item begins: the bytes before it are what the seal binds (§3.3). */
  bodyStart: number;
  /** Where the signature's item begins: the bytes before it are what is signed (§3.4). */
  proofStart: number;
  /** The version's own signature, or its batch's proof. */
  proof: Uint8Array | BatchProof;
}

function headLength(n: number): number {
  return n < 24 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : n < 0x100000000 ? 5 : 9;
}

function writeHead(out: Uint8Array, at: number, major: number, n: number): number {
  const m = major << 5;
  if (n < 24) {
    out[at] = m | n;
    return at + 1;
  }
  if (n < 0x100) {
    out[at] = m | 24;
    out[at + 1] = n;
    return at + 2;
  }
  if (n < 0x10000) {
    out[at] = m | 25;
    out[at + 1] = n >>> 8;
    out[at + 2] = n & 0xff;
    return at + 3;
  }
  if (n < 0x100000000) {
    out[at] = m | 26;
    new DataView(out.buffer, out.byteOffset).setUint32(at + 1, n);
    return at + 5;
  }
  out[at] = m | 27;
  const view = new DataView(out.buffer, out.byteOffset);
  view.setUint32(at + 1, Math.floor(n / 0x100000000));
  view.setUint32(at + 5, n >>> 0);
  return at + 9;
}

function writeBytes(out: Uint8Array, at: number, bytes: Uint8Array): number {
  const next = writeHead(out, at, BYTES, bytes.length);
  out.set(bytes, next);
  return next + bytes.length;
}

/** ASCII text (every text item of an envelope is ASCII by its grammar). */
function writeAscii(out: Uint8Array, at: number, text: string): number {
  let next = writeHead(out, at, TEXT, text.length);
  for (let i = 0; i < text.length; i++) out[next++] = text.charCodeAt(i);
  return next;
}

function writeIds(out: Uint8Array, at: number, ids: readonly Uint8Array[]): number {
  let next = writeHead(out, at, ARRAY, ids.length);
  for (const id of ids) next = writeBytes(out, next, id);
  return next;
}

const bytesLength = (n: number) => headLength(n) + n;
const idsLength = (ids: readonly Uint8Array[]) => headLength(ids.length) + ids.length * 34;

/** Bytes of the envelope up to its body (`v` to `f`). */
function headerBytes(h: EnvelopeHeader): number {
  return (
    1 +
    headLength(ENVELOPE_FORMAT) +
    bytesLength(h.space.length) +
    bytesLength(h.collection.length) +
    bytesLength(h.record.length) +
    idsLength(h.supersedes) +
    headLength(h.timestamp) +
    bytesLength(h.author.length) +
    idsLength(h.files)
  );
}

/** Writes the envelope up to its body into `out` at `at`; returns where it ends. */
function writeHeader(out: Uint8Array, start: number, h: EnvelopeHeader): number {
  let at = writeHead(out, start, ARRAY, ITEMS);
  at = writeHead(out, at, UINT, ENVELOPE_FORMAT);
  at = writeBytes(out, at, h.space);
  at = writeAscii(out, at, h.collection);
  at = writeAscii(out, at, h.record);
  at = writeIds(out, at, h.supersedes);
  at = writeHead(out, at, UINT, h.timestamp);
  at = writeBytes(out, at, h.author);
  return writeIds(out, at, h.files);
}

/**
 * The envelope up to its body (`v` to `f`): what the body's seal binds. Every text must be
 * ASCII and every id 32 bytes; the caller checked the grammars.
 */
export function encodeHeader(h: EnvelopeHeader): Uint8Array {
  const out = new Uint8Array(headerBytes(h));
  writeHeader(out, 0, h);
  return out;
}

/** An envelope up to its signature, built in one buffer for its body to be sealed in place. */
export interface UnsignedDraft {
  /** `prefix`, then the header, the sealed body's head and room for its bytes. */
  bytes: Uint8Array;
  /** The header: a view of `bytes`. */
  header: Uint8Array;
  /** Where the sealed body's bytes go. */
  bodyAt: number;
}

/**
 * `prefix` (what a signature covers before the envelope), then the header followed by the
 * body's item, everything the signature covers, with room for a sealed body of `bodyBytes`
 * (-1: a tombstone) for the caller to write. As {@link encodeHeader}, the caller checked the
 * grammars.
 */
export function unsignedAfter(
  prefix: Uint8Array,
  h: EnvelopeHeader,
  bodyBytes: number,
): UnsignedDraft {
  const start = prefix.length;
  const headerEnd = start + headerBytes(h);
  const out = new Uint8Array(headerEnd + (bodyBytes < 0 ? 1 : bytesLength(bodyBytes)));
  out.set(prefix);
  writeHeader(out, start, h);
  let bodyAt = headerEnd;
  if (bodyBytes >= 0) bodyAt = writeHead(out, headerEnd, BYTES, bodyBytes);
  else out[headerEnd] = NULL;
  return { bytes: out, header: out.subarray(start, headerEnd), bodyAt };
}

/** The whole envelope: the unsigned part and the signature's item (one signature, or a batch's proof). */
export function encodeSigned(unsigned: Uint8Array, proof: Uint8Array | BatchProof): Uint8Array {
  const length =
    proof instanceof Uint8Array
      ? bytesLength(SIGNATURE_BYTES)
      : 1 +
        bytesLength(SIGNATURE_BYTES) +
        headLength(proof.size) +
        headLength(proof.index) +
        idsLength(proof.path);
  const out = new Uint8Array(unsigned.length + length);
  out.set(unsigned);
  if (proof instanceof Uint8Array) {
    writeBytes(out, unsigned.length, proof);
    return out;
  }
  let at = writeHead(out, unsigned.length, ARRAY, 4);
  at = writeBytes(out, at, proof.signature);
  at = writeHead(out, at, UINT, proof.size);
  at = writeHead(out, at, UINT, proof.index);
  writeIds(out, at, proof.path);
  return out;
}

const malformed = (why: string): never => {
  throw new MincaError('malformed', `malformed version: ${why}`);
};
const invalid = (why: string): never => {
  throw new MincaError('invalid_version', `invalid version: ${why}`);
};

/** Reads heads in their shortest form only: the one encoding of each value. */
class Reader {
  at = 0;
  constructor(readonly bytes: Uint8Array) {}

  /** The next head's major type, without taking it; `malformed` past the end. */
  peek(): number {
    if (this.at >= this.bytes.length) malformed('it ends early');
    return this.bytes[this.at]!;
  }

  head(major: number, what: string): number {
    const first = this.peek();
    if (first >> 5 !== major) invalid(`${what} is of the wrong type`);
    const info = first & 31;
    const b = this.bytes;
    const at = this.at;
    if (info < 24) {
      this.at = at + 1;
      return info;
    }
    if (info > 27) malformed(`${what} has an indefinite or reserved length`);
    const size = 1 << (info - 24);
    if (at + 1 + size > b.length) malformed('it ends early');
    let n: number;
    if (size === 1) n = b[at + 1]!;
    else if (size === 2) n = (b[at + 1]! << 8) | b[at + 2]!;
    else {
      const view = new DataView(b.buffer, b.byteOffset + at + 1, size);
      n = size === 4 ? view.getUint32(0) : view.getUint32(0) * 0x100000000 + view.getUint32(4);
      if (size === 8 && !Number.isSafeInteger(n)) invalid(`${what} is past 2^53 - 1`);
    }
    if (headLength(n) !== 1 + size) malformed(`${what} is not in its shortest form`);
    this.at = at + 1 + size;
    return n;
  }

  bytesOf(what: string, length?: number): Uint8Array {
    const n = this.head(BYTES, what);
    if (length !== undefined && n !== length) invalid(`${what} must be ${length} bytes`);
    if (this.at + n > this.bytes.length) malformed('it ends early');
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  /** ASCII text of at most `max` characters (longer is invalid, whatever its grammar). */
  ascii(what: string, max: number): string {
    const n = this.head(TEXT, what);
    if (n > max) invalid(`${what} is too long`);
    if (this.at + n > this.bytes.length) malformed('it ends early');
    const codes = this.bytes.subarray(this.at, this.at + n);
    for (const c of codes) if (c > 0x7f) invalid(`${what} is not ASCII`);
    this.at += n;
    return latin1(codes);
  }

  /** A list of at most `max` ids; when `sorted`, each greater than the one before. */
  ids(what: string, max: number, sorted = true): Uint8Array[] {
    const n = this.head(ARRAY, what);
    if (n > max) invalid(`${what} must hold at most ${max} ids`);
    const out: Uint8Array[] = [];
    for (let i = 0; i < n; i++) {
      const id = this.bytesOf(what, ID_LENGTH);
      if (sorted && i > 0 && !ascending(out[i - 1]!, id))
        invalid(`${what} must be sorted and unique`);
      out.push(id);
    }
    return out;
  }
}

function ascending(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < ID_LENGTH; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/** Limits an envelope's parts must keep. */
export interface EnvelopeLimits {
  maxSupersedes: number;
  maxFiles: number;
  maxCollection: number;
  maxRecord: number;
  maxBatch: number;
}

/**
 * Reads an envelope strictly: one CBOR array of ten items in their one encoding, each of its
 * type and length, no byte after it. `malformed` for what is not CBOR in shortest form,
 * `invalid_version` for a field of the wrong kind. Grammars of names are the caller's.
 */
export function parseEnvelope(bytes: Uint8Array, limits: EnvelopeLimits): ParsedEnvelope {
  const r = new Reader(bytes);
  if (r.head(ARRAY, 'the envelope') !== ITEMS) invalid(`an envelope has ${ITEMS} items`);
  const format = r.head(UINT, 'the format');
  if (format !== ENVELOPE_FORMAT) invalid(`unknown format ${format}`);
  const space = r.bytesOf('the space id', SPACE_BYTES);
  const collection = r.ascii('the collection', limits.maxCollection);
  const record = r.ascii('the record id', limits.maxRecord);
  const supersedes = r.ids('supersedes', limits.maxSupersedes);
  const timestamp = r.head(UINT, 'the timestamp');
  const author = r.bytesOf('the author', AUTHOR_BYTES);
  const files = r.ids('files', limits.maxFiles);
  const bodyStart = r.at;
  let body: Uint8Array | null = null;
  if (r.peek() === NULL) r.at++;
  else body = r.bytesOf('the body');
  const proofStart = r.at;
  let proof: Uint8Array | BatchProof;
  if (r.peek() >> 5 === ARRAY) {
    if (r.head(ARRAY, 'the batch proof') !== 4) invalid('a batch proof has 4 items');
    const signature = r.bytesOf('the signature', SIGNATURE_BYTES);
    const size = r.head(UINT, 'the batch size');
    const index = r.head(UINT, 'the batch index');
    if (size < 2 || size > limits.maxBatch || index >= size) invalid('bad batch size or index');
    const path = r.ids('the batch path', 32, false);
    proof = { signature, size, index, path };
  } else proof = r.bytesOf('the signature', SIGNATURE_BYTES);
  if (r.at !== bytes.length) malformed('bytes follow the envelope');
  return {
    space,
    collection,
    record,
    supersedes,
    timestamp,
    author,
    files,
    body,
    bodyStart,
    proofStart,
    proof,
  };
}

/**
 * Where the body's item begins in an envelope already read strictly once (a stored version's):
 * the length of what its seal binds. It walks the heads without judging the fields again.
 */
export function headerLength(bytes: Uint8Array): number {
  const r = new Reader(bytes);
  const skip = (n: number) => {
    r.at += n;
  };
  r.head(ARRAY, 'the envelope');
  r.head(UINT, 'the format');
  skip(r.head(BYTES, 'the space id'));
  skip(r.head(TEXT, 'the collection'));
  skip(r.head(TEXT, 'the record id'));
  skip(r.head(ARRAY, 'supersedes') * 34);
  r.head(UINT, 'the timestamp');
  skip(r.head(BYTES, 'the author'));
  skip(r.head(ARRAY, 'files') * 34);
  return r.at;
}

/** The sealed body of an envelope already read strictly once, and where its header ends. */
export function bodyOf(bytes: Uint8Array): { headerEnd: number; body: Uint8Array | null } {
  const headerEnd = headerLength(bytes);
  const r = new Reader(bytes);
  r.at = headerEnd;
  return { headerEnd, body: r.peek() === NULL ? null : r.bytesOf('the body') };
}
