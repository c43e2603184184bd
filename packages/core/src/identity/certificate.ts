/**
 * Certificates and revocations (spec 05 §6): how an account's root key vouches for a device
 * key, a device (or the root) for a writer key, and how the root takes either back. Each is a
 * small CBOR map signed by its issuer, checked strictly wherever it is read.
 */
import { utf8 } from '../bytes.js';
import { decodeStrict, encodeCbor } from '../encoding.js';
import { MincaError } from '../errors.js';
import { SPACE_ID } from '../ids.js';
import { verifySignature } from '../keys.js';

/** What signs a certificate or revocation: a `SigningKey`, or any key that signs as its DID. */
export interface Signer {
  readonly did: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

export const CERTIFICATE_FORMAT = 1;
/** A writer certificate names at most this many spaces (an app's). */
export const MAX_CERTIFIED_SPACES = 256;
/** Largest encoded certificate or revocation. */
export const MAX_CERTIFICATE_BYTES = 16 * 1024;
const MAX_LABEL = 100;
const CERT_CONTEXT = utf8('minca/certificate/v1\n');
const REVOKE_CONTEXT = utf8('minca/revocation/v1\n');

/** `device`: a device key of the account, issued by its root. `writer`: a node's writer key. */
export type CertificateKind = 'device' | 'writer';

/** A certificate, decoded and verified. */
export interface Certificate {
  kind: CertificateKind;
  /** The DID that signed it: the account's root, or (for a writer) one of its devices. */
  issuer: string;
  /** The DID it vouches for. */
  subject: string;
  /** The account the subject acts for: the root key's DID. */
  account: string;
  /** When it was issued, ms. */
  issued: number;
  /** A writer limited to these spaces (an app's writer key); absent: every space. */
  spaces?: string[];
  /** A writer limited to reading (an agent that may only read): what it signs never stands. */
  role?: 'reader';
  /** A name for people ("laptop", "agent 3"). Never a secret. */
  label?: string;
  /** The certificate as signed and encoded. */
  bytes: Uint8Array;
}

/** A revocation: from `at` on, what `subject` signs no longer stands for `account`. */
export interface Revocation {
  subject: string;
  account: string;
  /** When it takes effect, ms (a version timestamp at or after it does not stand). */
  at: number;
  bytes: Uint8Array;
}

const bad = (what: string, why: string): never => {
  throw new MincaError('invalid_input', `invalid ${what}: ${why}`);
};

function signed(context: Uint8Array, fields: Record<string, unknown>): Uint8Array {
  const body = encodeCbor(fields);
  const out = new Uint8Array(context.length + body.length);
  out.set(context);
  out.set(body, context.length);
  return out;
}

/** Issues a certificate for `subject`, signed by `issuer`. */
export async function issueCertificate(
  issuer: Signer,
  fields: Omit<Certificate, 'issuer' | 'bytes'>,
): Promise<Certificate> {
  const spaces = fields.spaces ? [...new Set(fields.spaces)].sort() : undefined;
  const m: Record<string, unknown> = {
    v: CERTIFICATE_FORMAT,
    k: fields.kind,
    i: issuer.did,
    s: fields.subject,
    a: fields.account,
    t: fields.issued,
    ...(spaces ? { x: spaces } : {}),
    ...(fields.role !== undefined ? { r: fields.role } : {}),
    ...(fields.label !== undefined ? { n: fields.label } : {}),
  };
  const g = await issuer.sign(signed(CERT_CONTEXT, m));
  return decodeCertificate(encodeCbor({ ...m, g }));
}

function did(value: unknown, what: string, field: string): string {
  if (typeof value !== 'string' || !value.startsWith('did:key:z') || value.length > 64)
    bad(what, `${field} is not a did:key`);
  return value as string;
}

function time(value: unknown, what: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) bad(what, 'bad time');
  return value as number;
}

/** Decodes a certificate without checking its signature (see {@link verifyCertificate}). */
export function decodeCertificate(bytes: Uint8Array): Certificate {
  const what = 'certificate';
  if (!(bytes instanceof Uint8Array) || bytes.length > MAX_CERTIFICATE_BYTES)
    bad(what, 'too large');
  const m = decodeStrict(bytes, { maxBytes: MAX_CERTIFICATE_BYTES, maxDepth: 2 }) as Record<
    string,
    unknown
  >;
  if (m === null || typeof m !== 'object' || Array.isArray(m)) bad(what, 'not a map');
  for (const key of Object.keys(m))
    if (!['v', 'k', 'i', 's', 'a', 't', 'x', 'r', 'n', 'g'].includes(key))
      bad(what, `field ${key}`);
  if (m.v !== CERTIFICATE_FORMAT) bad(what, 'unknown format');
  if (m.k !== 'device' && m.k !== 'writer') bad(what, 'unknown kind');
  if (!(m.g instanceof Uint8Array) || m.g.length !== 64) bad(what, 'bad signature');
  let spaces: string[] | undefined;
  if (m.x !== undefined) {
    if (m.k !== 'writer') bad(what, 'only a writer is limited to spaces');
    if (!Array.isArray(m.x) || m.x.length === 0 || m.x.length > MAX_CERTIFIED_SPACES)
      bad(what, 'bad spaces');
    spaces = m.x as string[];
    spaces.forEach((s, i) => {
      if (typeof s !== 'string' || !SPACE_ID.test(s) || (i > 0 && spaces![i - 1]! >= s))
        bad(what, 'spaces must be sorted space ids');
    });
  }
  if (m.n !== undefined && (typeof m.n !== 'string' || m.n.length > MAX_LABEL))
    bad(what, 'bad label');
  if (m.r !== undefined && (m.r !== 'reader' || m.k !== 'writer')) bad(what, 'bad role');
  const cert: Certificate = {
    kind: m.k as CertificateKind,
    issuer: did(m.i, what, 'issuer'),
    subject: did(m.s, what, 'subject'),
    account: did(m.a, what, 'account'),
    issued: time(m.t, what),
    ...(spaces ? { spaces } : {}),
    ...(m.r !== undefined ? { role: 'reader' as const } : {}),
    ...(m.n !== undefined ? { label: m.n as string } : {}),
    bytes,
  };
  if (cert.kind === 'device' && cert.issuer !== cert.account)
    bad(what, 'a device is certified by its account');
  if (cert.subject === cert.account) bad(what, 'an account does not certify itself');
  return cert;
}

/** Checks a decoded certificate's signature; `invalid_input` when it does not verify. */
export async function verifyCertificate(cert: Certificate): Promise<void> {
  const { g, ...fields } = decodeStrict(cert.bytes, {
    maxBytes: MAX_CERTIFICATE_BYTES,
    maxDepth: 2,
  }) as Record<string, unknown>;
  if (!(await verifySignature(cert.issuer, signed(CERT_CONTEXT, fields), g as Uint8Array)))
    bad('certificate', 'its signature does not verify');
}

/** Issues a revocation of `subject` for the account whose root is `root`. */
export async function issueRevocation(
  root: Signer,
  subject: string,
  at: number,
): Promise<Revocation> {
  const m = { v: CERTIFICATE_FORMAT, k: 'revoke', a: root.did, s: subject, t: at };
  const g = await root.sign(signed(REVOKE_CONTEXT, m));
  return verifyRevocation(encodeCbor({ ...m, g }));
}

/** Decodes a revocation and checks that the account's root signed it. */
export async function verifyRevocation(bytes: Uint8Array): Promise<Revocation> {
  const what = 'revocation';
  if (!(bytes instanceof Uint8Array) || bytes.length > MAX_CERTIFICATE_BYTES)
    bad(what, 'too large');
  const m = decodeStrict(bytes, { maxBytes: MAX_CERTIFICATE_BYTES, maxDepth: 1 }) as Record<
    string,
    unknown
  >;
  if (m === null || typeof m !== 'object' || Array.isArray(m)) bad(what, 'not a map');
  const keys = Object.keys(m).sort().join(',');
  if (keys !== 'a,g,k,s,t,v' || m.v !== CERTIFICATE_FORMAT || m.k !== 'revoke')
    bad(what, 'unexpected fields');
  const { g, ...fields } = m;
  const revocation: Revocation = {
    account: did(m.a, what, 'account'),
    subject: did(m.s, what, 'subject'),
    at: time(m.t, what),
    bytes,
  };
  if (
    !(g instanceof Uint8Array) ||
    !(await verifySignature(revocation.account, signed(REVOKE_CONTEXT, fields), g))
  )
    bad(what, 'its signature does not verify');
  return revocation;
}
