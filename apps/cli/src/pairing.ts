/**
 * Pairing a new device through the data folder (spec 05 §14.11). A device of the account shows
 * a one-time code; the new device, which has a copy of the folder, types it. Both stretch the
 * code with scrypt into a pairing id and two keys; the new device leaves a sealed request in
 * `<folder>/pairing/<id>.request.minca` (its device key's DID, signed with that key), and the
 * old one answers in `<id>.answer.minca` (the device certificate and the registry key). The new
 * device deletes its request once it has the answer, and the old one then deletes the answer.
 * The code is answered once, only while `minca device add` waits (10 minutes at most).
 */
import { randomInt } from 'node:crypto';
import { readFile, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Certificate,
  decodeCertificate,
  decodeStrict,
  encodeCbor,
  openSealed,
  type SigningKey,
  seal,
  verifyCertificate,
  verifySignature,
} from '@minca/core';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { CliError, EXIT } from './cli-error.js';
import { stretch } from './recovery.js';
import { exists, privateDir, writeFileAtomic } from './secure-files.js';

export const PAIRING_DIR = 'pairing';
/** The longest a pairing waits, and the default. */
export const PAIRING_MS = 10 * 60 * 1000;
const PAIRING_SCRYPT = { N: 2 ** 15, r: 8, p: 1 } as const;
/** Crockford's base32: no I, L, O or U, so a code read aloud is typed right. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_CHARS = 16;
const POLL_MS = 250;
const MAX_FILE = 64 * 1024;
const FORMAT = 1;
const utf8 = (text: string) => new TextEncoder().encode(text);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A new one-time code: 16 characters of base32 (80 bits), as `XXXX-XXXX-XXXX-XXXX`. */
export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < CODE_CHARS; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code.match(/.{4}/g)!.join('-');
}

/** A typed code, checked and normalized: case, spaces and dashes don't matter, O is 0, I and L 1. */
export function normalizeCode(text: string): string {
  const code = text.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (code.length !== CODE_CHARS || [...code].some((c) => !ALPHABET.includes(c))) {
    throw new CliError(EXIT.usage, 'that is not a pairing code: it has 16 letters and digits');
  }
  return code;
}

/** What one code gives both sides. */
export interface Pairing {
  folder: string;
  account: string;
  id: string;
  requestKey: Uint8Array;
  answerKey: Uint8Array;
}

/** The pairing a code names for `account`'s folder (scrypt, so guessing a code costs). */
export function pairingFor(folder: string, account: string, code: string): Pairing {
  const stretched = stretch(
    normalizeCode(code),
    utf8(`minca/cli/pairing/v1\0${account}`),
    PAIRING_SCRYPT,
  );
  const sub = (info: string, length = 32) => hkdf(sha256, stretched, undefined, utf8(info), length);
  return {
    folder,
    account,
    id: Buffer.from(sub('minca/cli/pairing/id', 8)).toString('hex'),
    requestKey: sub('minca/cli/pairing/request'),
    answerKey: sub('minca/cli/pairing/answer'),
  };
}

const fileOf = (p: Pairing, kind: 'request' | 'answer') =>
  join(p.folder, PAIRING_DIR, `${p.id}.${kind}.minca`);
const aadOf = (p: Pairing, kind: 'request' | 'answer') =>
  utf8(`minca/cli/pairing/v1\0${kind}\0${p.account}\0${p.id}`);
const requestProof = (p: Pairing, device: string, at: number) =>
  encodeCbor(['minca/cli/pairing-request/v1', p.account, p.id, device, at]);

/** Reads and opens one of the pairing's files: `undefined` while absent or still arriving. */
async function readSealed(
  p: Pairing,
  kind: 'request' | 'answer',
): Promise<Record<string, unknown> | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(fileOf(p, kind)));
  } catch {
    return undefined;
  }
  if (bytes.length > MAX_FILE) return undefined;
  try {
    const key = kind === 'request' ? p.requestKey : p.answerKey;
    const m = decodeStrict(openSealed(key, bytes, aadOf(p, kind)), {
      maxBytes: MAX_FILE,
      maxDepth: 1,
    }) as Record<string, unknown>;
    return m !== null && typeof m === 'object' && m.v === FORMAT ? m : undefined;
  } catch {
    // A sync service may still be copying it in; it is read again.
    return undefined;
  }
}

async function writeSealed(p: Pairing, kind: 'request' | 'answer', value: unknown) {
  await privateDir(join(p.folder, PAIRING_DIR));
  const key = kind === 'request' ? p.requestKey : p.answerKey;
  await writeFileAtomic(fileOf(p, kind), seal(key, encodeCbor(value), aadOf(p, kind)));
}

const timedOut = (what: string) =>
  new CliError(EXIT.unavailable, `${what} within the time the pairing code lasts: it has expired`);

// The new device's side.

/** Leaves the new device's request in the folder. */
export async function sendRequest(p: Pairing, device: SigningKey, label: string): Promise<void> {
  const at = Date.now();
  const g = await device.sign(requestProof(p, device.did, at));
  await writeSealed(p, 'request', { v: FORMAT, d: device.did, n: label.slice(0, 100), t: at, g });
}

/** Waits for the answer to this device's request; then takes the request away. */
export async function awaitAnswer(
  p: Pairing,
  device: SigningKey,
  deadline: number,
): Promise<{ certificate: Certificate; registryKey: Uint8Array }> {
  try {
    while (Date.now() < deadline) {
      const m = await readSealed(p, 'answer');
      if (m) {
        if (!(m.c instanceof Uint8Array) || !(m.k instanceof Uint8Array) || m.k.length !== 32)
          throw new CliError(EXIT.badData, 'the answer to the pairing is damaged');
        const certificate = decodeCertificate(m.c);
        await verifyCertificate(certificate);
        if (
          certificate.kind !== 'device' ||
          certificate.subject !== device.did ||
          certificate.account !== p.account
        )
          throw new CliError(EXIT.badData, 'the answer to the pairing is not for this device');
        return { certificate, registryKey: m.k };
      }
      await sleep(POLL_MS);
    }
    throw timedOut('no device of the account answered');
  } finally {
    await rm(fileOf(p, 'request'), { force: true });
  }
}

// The side of the device that adds it.

/** Waits for a new device's request; gives its DID and label once its signature holds. */
export async function awaitRequest(
  p: Pairing,
  deadline: number,
): Promise<{ did: string; label?: string }> {
  while (Date.now() < deadline) {
    const m = await readSealed(p, 'request');
    if (m) {
      const ok =
        typeof m.d === 'string' &&
        typeof m.t === 'number' &&
        m.g instanceof Uint8Array &&
        (await verifySignature(m.d, requestProof(p, m.d, m.t), m.g).catch(() => false));
      if (!ok) {
        await rm(fileOf(p, 'request'), { force: true });
        throw new CliError(
          EXIT.refused,
          'a pairing request came that does not hold: nothing was given',
        );
      }
      return { did: m.d as string, ...(typeof m.n === 'string' && m.n ? { label: m.n } : {}) };
    }
    await sleep(POLL_MS);
  }
  throw timedOut('no new device asked');
}

/**
 * Answers with the device's certificate and the registry key, and waits for the new device to
 * take its request away (it has the answer). The answer is deleted either way.
 */
export async function answer(
  p: Pairing,
  certificate: Certificate,
  registryKey: Uint8Array,
  deadline: number,
): Promise<void> {
  try {
    await writeSealed(p, 'answer', { v: FORMAT, c: certificate.bytes, k: registryKey });
    while (Date.now() < deadline) {
      if (!(await exists(fileOf(p, 'request')))) return;
      await sleep(POLL_MS);
    }
    throw timedOut('the new device did not take the answer');
  } finally {
    await rm(fileOf(p, 'answer'), { force: true });
  }
}

/** Removes what a pairing left in the folder. */
export async function cleanUpPairing(p: Pairing): Promise<void> {
  await rm(fileOf(p, 'request'), { force: true });
  await rm(fileOf(p, 'answer'), { force: true });
  await rmdir(join(p.folder, PAIRING_DIR)).catch(() => undefined);
}
