/**
 * An account's keys in this browser (spec 05 §6, §18.4), in IndexedDB `minca-device-keys`
 * (object store `keys`), one entry per account id:
 *
 * - `root`: the account's root key. It only certifies (this browser's device, connected apps),
 *   so it is a WebCrypto Ed25519 key made non-extractable: script can sign with it, never read it.
 * - `device`: this browser's device key, certified by the root, non-extractable too. It
 *   certifies the writer.
 * - `writer`: the key the account's node signs versions with, certified by the device. Kept as
 *   its 32-byte secret, since a node's `SigningKey` also opens space keys sealed for it (§7.4).
 *
 * All three are written before the account is listed, and read again at every start: none
 * lives only in memory.
 */
import { didFromPublicKey, issueCertificate, issueRevocation, SigningKey } from '@minca/core';
import { openDB } from 'idb';

export const KEYS_DB = 'minca-device-keys';

/** What signs as a DID: a WebCrypto key that never leaves the browser, or a `SigningKey`. */
export interface Signer {
  did: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

export interface StoredKeys {
  v: 2;
  root: { did: string; key: CryptoKey };
  device: { did: string; key: CryptoKey; certificate: Uint8Array };
  writer: { secret: Uint8Array; certificate: Uint8Array };
}

/** The node's part: its writer key and the chain tying it to the account. */
export interface NodeKeys {
  key: SigningKey;
  /** `[device certificate, writer certificate]`, the root's first. */
  certificates: Uint8Array[];
}

const keysDb = () => openDB(KEYS_DB, 1, { upgrade: (db) => void db.createObjectStore('keys') });

const ED25519 = { name: 'Ed25519' } as const;

/** A signer over a WebCrypto private key. */
export function webSigner(did: string, key: CryptoKey): Signer {
  return {
    did,
    sign: async (message) =>
      new Uint8Array(await crypto.subtle.sign(ED25519, key, message.slice())),
  };
}

/** A fresh Ed25519 key in WebCrypto that script can use and never read. */
async function newWebKey(): Promise<{ did: string; key: CryptoKey }> {
  const pair = (await crypto.subtle.generateKey(ED25519, false, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return { did: didFromPublicKey(raw), key: pair.privateKey };
}

/**
 * `issueCertificate` with a signer that is not a `SigningKey`: it reads only the issuer's `did`
 * and calls its `sign`, which is all a WebCrypto key offers. (Core types the issuer as a
 * `SigningKey`; a `{ did, sign }` type there would make this cast go.)
 */
export function certify(issuer: Signer, fields: Parameters<typeof issueCertificate>[1]) {
  return issueCertificate(issuer as unknown as SigningKey, fields);
}

/** The root's revocation of `subject` from `at` on, as `certify` signs (the same cast). */
export function revoke(root: Signer, subject: string, at: number) {
  return issueRevocation(root as unknown as SigningKey, subject, at);
}

/** This device's key and the node's writer key, certified under `root`. */
async function deviceAndWriter(root: { did: string; key: CryptoKey }): Promise<StoredKeys> {
  const device = await newWebKey();
  const issued = Date.now();
  const deviceCert = await certify(webSigner(root.did, root.key), {
    kind: 'device',
    subject: device.did,
    account: root.did,
    issued,
    label: 'this browser',
  });
  const writer = SigningKey.generate();
  const writerCert = await certify(webSigner(device.did, device.key), {
    kind: 'writer',
    subject: writer.did,
    account: root.did,
    issued,
    label: 'the account home',
  });
  return {
    v: 2,
    root,
    device: { ...device, certificate: deviceCert.bytes },
    writer: { secret: writer.exportSecret(), certificate: writerCert.bytes },
  };
}

/** Makes the keys of a new account and keeps them under `id`; gives the account's DID. */
export async function createKeys(id: string): Promise<string> {
  const keys = await deviceAndWriter(await newWebKey());
  await put(id, keys);
  return keys.root.did;
}

async function put(id: string, keys: StoredKeys): Promise<void> {
  const db = await keysDb();
  try {
    await db.put('keys', keys, id);
  } finally {
    db.close();
  }
}

/**
 * The account's keys, or `undefined` when this browser doesn't hold them. An account made
 * before keys had roles kept only its key's secret: that key becomes the root (the account
 * keeps its DID, and every space it owns), moved into WebCrypto, with a new device and writer.
 */
export async function readKeys(id: string): Promise<StoredKeys | undefined> {
  const db = await keysDb();
  let stored: unknown;
  try {
    stored = await db.get('keys', id);
  } finally {
    db.close();
  }
  if (stored instanceof Uint8Array && stored.length === 32) {
    const old = SigningKey.fromSecret(stored);
    const b64 = (bytes: Uint8Array) =>
      btoa(String.fromCharCode(...bytes))
        .replaceAll('+', '-')
        .replaceAll('/', '_')
        .replace(/=+$/, '');
    const key = await crypto.subtle.importKey(
      'jwk',
      { kty: 'OKP', crv: 'Ed25519', d: b64(stored), x: b64(old.publicKey) },
      ED25519,
      false,
      ['sign'],
    );
    const keys = await deviceAndWriter({ did: old.did, key });
    await put(id, keys);
    return keys;
  }
  const keys = stored as StoredKeys | undefined;
  return keys?.v === 2 ? keys : undefined;
}

/** The node's writer key and certificates for account `id`. */
export async function nodeKeys(id: string): Promise<NodeKeys | undefined> {
  const keys = await readKeys(id);
  if (!keys) return undefined;
  return {
    key: SigningKey.fromSecret(keys.writer.secret),
    certificates: [keys.device.certificate, keys.writer.certificate],
  };
}

/** The account's root, to certify with (a connected app's key). */
export async function rootSigner(id: string): Promise<Signer | undefined> {
  const keys = await readKeys(id);
  return keys && webSigner(keys.root.did, keys.root.key);
}

/** Deletes every key of account `id` from this browser. */
export async function deleteKeys(id: string): Promise<void> {
  const db = await keysDb();
  try {
    await db.delete('keys', id);
  } finally {
    db.close();
  }
}
