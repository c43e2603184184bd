/**
 * A fleet's key and its hosts' certificates (spec 06 §6.1). The fleet key is an account root
 * that never runs on a host: `minca host fleet new` makes it, kept by the operator, and `minca
 * host fleet join` certifies one host's key with it, as a writer certificate of the fleet's
 * account, into `<data>/fleet.cert`. A host with that file proves the fleet's DID in every
 * handshake: the DID members let hold their spaces, and the one its fleet peers share with.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeCertificate, issueCertificate, SigningKey, verifyChain } from '@minca/core';
import { CliError, EXIT } from '../cli-error.js';
import { writeFileAtomic } from '../secure-files.js';

export const FLEET_CERT_FILE = 'fleet.cert';

/** Reads a 32-byte Ed25519 secret from a file. */
export async function readKeyFile(path: string, what: string): Promise<SigningKey> {
  let secret: Uint8Array;
  try {
    secret = new Uint8Array(await readFile(path));
  } catch (cause) {
    throw new CliError(EXIT.notFound, `cannot read ${what} ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
  if (secret.length !== 32) throw new CliError(EXIT.badData, `${what} ${path} is damaged`);
  return SigningKey.fromSecret(secret);
}

/** Makes a fleet key in `path` (mode 0600); refuses to overwrite one. */
export async function newFleetKey(path: string): Promise<SigningKey> {
  const key = SigningKey.generate();
  try {
    await readFile(path);
    throw new CliError(EXIT.usage, `${path} exists: a fleet key is never overwritten`);
  } catch (error) {
    if (error instanceof CliError) throw error;
  }
  await writeFileAtomic(path, Buffer.from(key.exportSecret()), 0o600);
  return key;
}

/** Certifies `host` for the fleet of `fleet`, into `<data>/fleet.cert`. */
export async function joinFleet(data: string, fleet: SigningKey, host: SigningKey): Promise<void> {
  const cert = await issueCertificate(fleet, {
    kind: 'writer',
    subject: host.did,
    account: fleet.did,
    issued: Date.now(),
    label: 'host',
  });
  await writeFileAtomic(join(data, FLEET_CERT_FILE), Buffer.from(cert.bytes), 0o644);
}

/**
 * The host's fleet certificate, checked to certify its own key: the fleet's DID and the chain
 * to prove it, or undefined when the host is in no fleet.
 */
export async function fleetCertificate(
  data: string,
  host: SigningKey,
): Promise<{ fleet: string; chain: Uint8Array[] } | undefined> {
  const path = join(data, FLEET_CERT_FILE);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    decodeCertificate(bytes);
    const identity = await verifyChain(host.did, [bytes]);
    return { fleet: identity.account, chain: [bytes] };
  } catch (cause) {
    throw new CliError(
      EXIT.badData,
      `${path} does not certify this host's key: run \`minca host fleet join\` again`,
      { cause },
    );
  }
}
