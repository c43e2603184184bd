/**
 * What a fleet's hosts tell each other through the bucket (spec 06 §6.2): signed statements
 * under `fleet/`, each by a host whose key the fleet's key certified, and bound to the key it
 * is stored under, so a client that can write to the bucket can neither forge one nor move one
 * to another key. A reader keeps only statements that verify for its own fleet.
 */
import {
  decodeStrict,
  encodeCbor,
  MincaError,
  type SigningKey,
  verifyChain,
  verifySignature,
} from '@minca/core';

/** The prefix of every fleet statement in the bucket. No space id is this short. */
export const FLEET_PREFIX = 'fleet/';
const CONTEXT = 'minca/fleet/v1';
/** Larger statements are not read: a usage report of 10,000 spaces fits. */
export const MAX_STATEMENT_BYTES = 1024 * 1024;

export type StatementKind = 'host' | 'held' | 'subscription' | 'usage';

/** Who signs a fleet's statements: a host's key and the certificate tying it to the fleet. */
export interface FleetSigner {
  key: SigningKey;
  chain: readonly Uint8Array[];
  /** The fleet's DID: the account every host's key is certified for. */
  fleet: string;
}

/** A statement as read back: who signed it, and what it says. */
export interface Statement {
  /** The signing host's DID (its own key, not the fleet's). */
  signer: string;
  body: Record<string, unknown>;
}

const signedBytes = (kind: StatementKind, key: string, body: Record<string, unknown>) =>
  encodeCbor([CONTEXT, kind, key, body]);

/**
 * A statement's bytes: CBOR `{ v: 1, k, b, d, c, g }`, `g` the signer's signature over
 * CBOR `["minca/fleet/v1", k, blob key, b]`.
 */
export async function signStatement(
  signer: FleetSigner,
  kind: StatementKind,
  key: string,
  body: Record<string, unknown>,
): Promise<Uint8Array> {
  const g = await signer.key.sign(signedBytes(kind, key, body));
  return encodeCbor({ v: 1, k: kind, b: body, d: signer.key.did, c: [...signer.chain], g });
}

const bad = (key: string, why: string): never => {
  throw new MincaError('invalid_input', `the fleet statement ${key} ${why}`);
};

/**
 * Reads a statement stored under `key`: it must be of `kind`, signed by a key the fleet's key
 * certified, over this very key. Anything else is `invalid_input`.
 */
export async function readStatement(
  fleet: string,
  kind: StatementKind,
  key: string,
  bytes: Uint8Array,
): Promise<Statement> {
  if (bytes.length > MAX_STATEMENT_BYTES) bad(key, 'is too large');
  let m: Record<string, unknown>;
  try {
    m = decodeStrict(bytes, { maxBytes: MAX_STATEMENT_BYTES, maxDepth: 4 }) as Record<
      string,
      unknown
    >;
  } catch (cause) {
    throw new MincaError('invalid_input', `the fleet statement ${key} does not decode`, { cause });
  }
  if (typeof m !== 'object' || m === null || Array.isArray(m) || m instanceof Uint8Array)
    bad(key, 'is not a map');
  const keys = Object.keys(m).sort().join();
  if (keys !== 'b,c,d,g,k,v' || m.v !== 1 || m.k !== kind) bad(key, `is not a ${kind} statement`);
  const body = m.b as Record<string, unknown>;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) bad(key, 'has no body');
  if (typeof m.d !== 'string' || !(m.g instanceof Uint8Array) || !Array.isArray(m.c))
    bad(key, 'is not signed');
  const signer = m.d as string;
  const chain = m.c as unknown[];
  if (!chain.every((c) => c instanceof Uint8Array)) bad(key, 'has a bad certificate');
  const identity = await verifyChain(signer, chain as Uint8Array[]).catch(() =>
    bad(key, 'has certificates that do not hold'),
  );
  if (identity.account !== fleet) bad(key, 'is not by a host of this fleet');
  if (!(await verifySignature(signer, signedBytes(kind, key, body), m.g as Uint8Array)))
    bad(key, 'does not verify');
  return { signer, body };
}

/** The blob-key part naming a DID: its method-specific id, which is base58 (`z…`). */
export function didPart(did: string): string {
  const part = did.startsWith('did:key:') ? did.slice('did:key:'.length) : '';
  if (!/^z[1-9A-HJ-NP-Za-km-z]{1,100}$/.test(part))
    throw new MincaError('invalid_input', `${did} is not a did:key`);
  return part;
}
