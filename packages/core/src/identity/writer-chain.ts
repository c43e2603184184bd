/**
 * A writer's chain (spec 05 §6): the certificates that tie the key a node signs with to the
 * account it acts for — none (the key is the account's own), the root's writer certificate, or
 * the root's device certificate and that device's writer certificate.
 */
import { MincaError } from '../errors.js';
import { type Certificate, decodeCertificate, verifyCertificate } from './certificate.js';

/** Who a writer writes for, as its chain says. */
export interface WriterIdentity {
  writer: string;
  /** The account's DID (the root key's); the writer's own DID when it has no chain. */
  account: string;
  /** The device that certified the writer, when a device did. */
  device?: string;
  /** The spaces the writer is limited to (an app's key); absent: every space. */
  spaces?: string[];
  /** `reader`: the writer may only read (what it signs never stands). */
  role?: 'reader';
  /** The labels its certificates give, for people: the writer's, then its device's. */
  label?: string;
  deviceLabel?: string;
  /** The certificates, as encoded, root's first. */
  chain: Uint8Array[];
}

/** Certificates in a chain: a device's and a writer's. */
export const MAX_CHAIN = 2;

const broken = (why: string): never => {
  throw new MincaError('invalid_input', `the writer's certificates do not hold: ${why}`);
};

/** Checks that `chain` certifies `writer`, and gives who it writes for. */
export async function verifyChain(
  writer: string,
  chain: readonly Uint8Array[],
): Promise<WriterIdentity> {
  if (!Array.isArray(chain) || chain.length > MAX_CHAIN) broken('too many certificates');
  if (chain.length === 0) return { writer, account: writer, chain: [] };
  const certs = chain.map(decodeCertificate);
  await Promise.all(certs.map(verifyCertificate));
  const leaf = certs[certs.length - 1] as Certificate;
  if (leaf.kind !== 'writer' || leaf.subject !== writer) broken('the last is not this writer’s');
  const account = leaf.account;
  if (certs.length === 1) {
    if (leaf.issuer !== account) broken('a writer without a device is certified by its account');
    return { writer, account, ...limits(leaf), chain: [...chain] };
  }
  const device = certs[0] as Certificate;
  if (device.kind !== 'device' || device.account !== account || leaf.issuer !== device.subject)
    broken('the writer is not certified by a device of its account');
  return {
    writer,
    account,
    device: device.subject,
    ...limits(leaf),
    ...(device.label !== undefined ? { deviceLabel: device.label } : {}),
    chain: [...chain],
  };
}

/** What a writer certificate limits, and its label. */
function limits(leaf: Certificate) {
  return {
    ...(leaf.spaces ? { spaces: leaf.spaces } : {}),
    ...(leaf.role ? { role: leaf.role } : {}),
    ...(leaf.label !== undefined ? { label: leaf.label } : {}),
  };
}
