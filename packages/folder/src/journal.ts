/**
 * The journal a directory store writes each batch to before applying it, so a batch lands
 * whole even across a crash: a directory has no transactions, but renaming one file is atomic.
 *
 * Layout (big-endian): `"MJL1"`, u32 op count, then per op a u8 kind (0 put entry, 1 delete
 * entry, 2 delete version), u32 key length in UTF-16 code units and the code units as u16s,
 * and for a put a u32 value length and the value; last, the SHA-256 of everything before it.
 */
import { MincaError } from '@minca/core';

/** One write a journal holds. */
export type JournalOp =
  | { kind: 'put'; key: string; value: Uint8Array }
  | { kind: 'delete'; key: string }
  | { kind: 'deleteVersion'; id: string };

const MAGIC = [0x4d, 0x4a, 0x4c, 0x31]; // "MJL1"
const KINDS = ['put', 'delete', 'deleteVersion'] as const;
const DIGEST = 32;

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

/** The bytes of a journal holding `ops`. */
export async function encodeJournal(ops: readonly JournalOp[]): Promise<Uint8Array> {
  let size = 8 + DIGEST;
  for (const op of ops) {
    const key = op.kind === 'deleteVersion' ? op.id : op.key;
    size += 5 + 2 * key.length + (op.kind === 'put' ? 4 + op.value.length : 0);
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(MAGIC);
  view.setUint32(4, ops.length);
  let at = 8;
  for (const op of ops) {
    const key = op.kind === 'deleteVersion' ? op.id : op.key;
    out[at] = KINDS.indexOf(op.kind);
    view.setUint32(at + 1, key.length);
    at += 5;
    for (let i = 0; i < key.length; i++, at += 2) view.setUint16(at, key.charCodeAt(i));
    if (op.kind === 'put') {
      view.setUint32(at, op.value.length);
      out.set(op.value, at + 4);
      at += 4 + op.value.length;
    }
  }
  out.set(await sha256(out.subarray(0, at)), at);
  return out;
}

function malformed(reason: string): MincaError {
  return new MincaError('malformed', `journal ${reason}`);
}

/** The ops of a journal, or a `malformed` MincaError when it is torn or not a journal. */
export async function decodeJournal(bytes: Uint8Array): Promise<JournalOp[]> {
  if (bytes.length < 8 + DIGEST || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw malformed('does not start with MJL1');
  }
  const end = bytes.length - DIGEST;
  const digest = await sha256(bytes.subarray(0, end));
  if (digest.some((b, i) => bytes[end + i] !== b)) throw malformed('is torn (checksum differs)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(4);
  const ops: JournalOp[] = [];
  let at = 8;
  const need = (n: number) => {
    if (at + n > end) throw malformed('ends inside an op');
  };
  for (let n = 0; n < count; n++) {
    need(5);
    const kind = KINDS[bytes[at]!];
    const length = view.getUint32(at + 1);
    at += 5;
    if (!kind) throw malformed(`has an op of unknown kind ${bytes[at - 5]}`);
    need(2 * length);
    const units: number[] = [];
    for (let i = 0; i < length; i++, at += 2) units.push(view.getUint16(at));
    let key = '';
    for (let i = 0; i < units.length; i += 4096) {
      key += String.fromCharCode(...units.slice(i, i + 4096));
    }
    if (kind === 'put') {
      need(4);
      const size = view.getUint32(at);
      need(4 + size);
      ops.push({ kind, key, value: bytes.slice(at + 4, at + 4 + size) });
      at += 4 + size;
    } else if (kind === 'delete') ops.push({ kind, key });
    else ops.push({ kind, id: key });
  }
  if (at !== end) throw malformed('has bytes after its last op');
  return ops;
}
