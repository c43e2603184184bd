/**
 * The recovery file of a data folder (spec 05 §14.11): `<folder>/recovery.minca` wraps the
 * account's root key and its registry key under a key stretched from the recovery passphrase
 * with scrypt (memory-hard), so a copy of the folder opens on a new device with the passphrase,
 * and without it yields nothing. The scrypt parameters are in the file.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeStrict, encodeCbor, openSealed, SigningKey, seal } from '@minca/core';
import { scrypt } from '@noble/hashes/scrypt.js';
import { CliError, EXIT } from './cli-error.js';
import { writeFileAtomic } from './secure-files.js';

export const RECOVERY_FILE = 'recovery.minca';
const FORMAT = 1;
/** What a new recovery file uses: 128 MiB and about a second of work per try. */
export const RECOVERY_SCRYPT = { N: 2 ** 17, r: 8, p: 1 } as const;
/** The shortest passphrase a new folder takes, in characters. */
export const MIN_PASSPHRASE = 10;
const MAX_FILE = 4096;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * scrypt of `secret` (NFC-normalized UTF-8) to 32 bytes. Parameters from a file are bounded
 * first, so a hostile file can't ask for unbounded memory or time.
 */
export function stretch(secret: string, salt: Uint8Array, params: ScryptParams): Uint8Array {
  const { N, r, p } = params;
  const powerOfTwo = Number.isSafeInteger(N) && N >= 2 ** 14 && N <= 2 ** 20 && (N & (N - 1)) === 0;
  const memory = 128 * N * r;
  if (
    !powerOfTwo ||
    !Number.isSafeInteger(r) ||
    r < 1 ||
    r > 16 ||
    !Number.isSafeInteger(p) ||
    p < 1 ||
    p > 4 ||
    memory > 256 * 1024 * 1024
  ) {
    throw new CliError(EXIT.badData, 'the scrypt parameters are outside what minca accepts');
  }
  return scrypt(new TextEncoder().encode(secret.normalize('NFC')), salt, {
    N,
    r,
    p,
    dkLen: 32,
    maxmem: memory + 1024 * 1024,
  });
}

const aad = (account: string) => new TextEncoder().encode(`minca/cli/recovery/v1\0${account}`);

/** Refuses a new passphrase too short to hold up. */
export function checkNewPassphrase(passphrase: string): void {
  if ([...passphrase.normalize('NFC')].length < MIN_PASSPHRASE) {
    throw new CliError(
      EXIT.usage,
      `a recovery passphrase has at least ${MIN_PASSPHRASE} characters: a few words you keep`,
    );
  }
}

/** What the recovery file gives back. */
export interface Recovered {
  root: SigningKey;
  registryKey: Uint8Array;
}

/** Writes `<folder>/recovery.minca` for `account` (the root key's DID). */
export async function writeRecovery(
  folder: string,
  passphrase: string,
  secrets: Recovered,
): Promise<void> {
  checkNewPassphrase(passphrase);
  const account = secrets.root.did;
  const salt = new Uint8Array(randomBytes(16));
  const key = stretch(passphrase, salt, RECOVERY_SCRYPT);
  const box = seal(
    key,
    encodeCbor({ a: account, root: secrets.root.exportSecret(), reg: secrets.registryKey }),
    aad(account),
  );
  const file = encodeCbor({
    v: FORMAT,
    kdf: 'scrypt',
    n: RECOVERY_SCRYPT.N,
    r: RECOVERY_SCRYPT.r,
    p: RECOVERY_SCRYPT.p,
    salt,
    box,
  });
  await writeFileAtomic(join(folder, RECOVERY_FILE), file, 0o600);
}

/** Opens the recovery file of `folder` for `account` with `passphrase`. */
export async function openRecovery(
  folder: string,
  account: string,
  passphrase: string,
): Promise<Recovered> {
  const path = join(folder, RECOVERY_FILE);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch (cause) {
    throw new CliError(EXIT.badData, `${path} is missing: this folder can't be recovered`, {
      cause,
    });
  }
  const damaged = (cause?: unknown) =>
    new CliError(EXIT.badData, `${path} is damaged`, cause ? { cause } : undefined);
  if (bytes.length > MAX_FILE) throw damaged();
  let m: Record<string, unknown>;
  try {
    m = decodeStrict(bytes, { maxBytes: MAX_FILE, maxDepth: 1 }) as Record<string, unknown>;
  } catch (cause) {
    throw damaged(cause);
  }
  if (
    m === null ||
    typeof m !== 'object' ||
    m.v !== FORMAT ||
    m.kdf !== 'scrypt' ||
    !(m.salt instanceof Uint8Array) ||
    m.salt.length < 16 ||
    !(m.box instanceof Uint8Array)
  )
    throw damaged();
  const key = stretch(passphrase, m.salt, { N: m.n as number, r: m.r as number, p: m.p as number });
  let inner: Record<string, unknown>;
  try {
    inner = decodeStrict(openSealed(key, m.box, aad(account)), {
      maxBytes: MAX_FILE,
      maxDepth: 1,
    }) as Record<string, unknown>;
  } catch {
    throw new CliError(EXIT.refused, "the passphrase does not open this folder's recovery file");
  }
  const isKey = (k: unknown): k is Uint8Array => k instanceof Uint8Array && k.length === 32;
  if (inner?.a !== account || !isKey(inner.root) || !isKey(inner.reg)) throw damaged();
  const root = SigningKey.fromSecret(inner.root);
  if (root.did !== account) throw damaged();
  return { root, registryKey: inner.reg };
}
