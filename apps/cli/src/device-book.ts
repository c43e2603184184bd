/**
 * The devices of an account in a data folder (spec 05 §14.11): one sealed file per device,
 * `<folder>/devices/<16 hex>.minca`, so devices that add or remove others never write the same
 * file. Sealed under a key derived from the registry key, so the folder tells nobody else how
 * many devices there are beyond the count of files, nor their names.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  decodeCertificate,
  decodeStrict,
  encodeCbor,
  hashId,
  openSealed,
  seal,
  verifyCertificate,
  verifyRevocation,
} from '@minca/core';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { privateDir, writeFileAtomic } from './secure-files.js';

export const DEVICES_DIR = 'devices';
const FORMAT = 1;
const MAX_FILE = 64 * 1024;
const FILE = /^([0-9a-f]{16})\.minca$/;
const utf8 = (text: string) => new TextEncoder().encode(text);

/** A device of the account, as the folder's book says. */
export interface DeviceRecord {
  did: string;
  label?: string;
  /** When it was added, ms. */
  added: number;
  /** Its device certificate, by the root. */
  certificate: Uint8Array;
  /** When it was removed (its revocation's time), ms. */
  removed?: number;
  /** The root's revocation of it. */
  revocation?: Uint8Array;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** The book of `account`'s devices in `folder`, sealed under `registryKey`. */
export class DeviceBook {
  readonly #dir: string;
  readonly #key: Uint8Array;

  constructor(
    folder: string,
    private readonly account: string,
    registryKey: Uint8Array,
  ) {
    this.#dir = join(folder, DEVICES_DIR);
    this.#key = hkdf(sha256, registryKey, utf8('minca/cli/devices/v1'), utf8(account), 32);
  }

  #aad(file: string) {
    return utf8(`minca/cli/device/v1\0${this.account}\0${file}`);
  }

  static fileId(did: string): string {
    return hex(hashId(utf8(`minca/cli/device-file/v1\0${did}`)).subarray(0, 8));
  }

  /** Every device whose file reads; one still arriving or damaged is left out. */
  async list(): Promise<DeviceRecord[]> {
    const names = await readdir(this.#dir).catch(() => [] as string[]);
    const out: DeviceRecord[] = [];
    for (const name of names.sort()) {
      const id = FILE.exec(name)?.[1];
      if (!id) continue;
      const record = await this.#read(id).catch(() => undefined);
      if (record) out.push(record);
    }
    return out.sort((a, b) => a.added - b.added || (a.did < b.did ? -1 : 1));
  }

  async get(did: string): Promise<DeviceRecord | undefined> {
    return this.#read(DeviceBook.fileId(did)).catch(() => undefined);
  }

  async #read(id: string): Promise<DeviceRecord | undefined> {
    const bytes = new Uint8Array(await readFile(join(this.#dir, `${id}.minca`)));
    if (bytes.length > MAX_FILE) return undefined;
    const m = decodeStrict(openSealed(this.#key, bytes, this.#aad(id)), {
      maxBytes: MAX_FILE,
      maxDepth: 1,
    }) as Record<string, unknown>;
    if (m?.v !== FORMAT || typeof m.d !== 'string' || !(m.c instanceof Uint8Array)) return;
    if (typeof m.a !== 'number' || DeviceBook.fileId(m.d) !== id) return;
    const cert = decodeCertificate(m.c);
    await verifyCertificate(cert);
    if (cert.kind !== 'device' || cert.subject !== m.d || cert.account !== this.account) return;
    const record: DeviceRecord = {
      did: m.d,
      ...(cert.label !== undefined ? { label: cert.label } : {}),
      added: m.a,
      certificate: m.c,
    };
    if (m.r instanceof Uint8Array) {
      const revocation = await verifyRevocation(m.r);
      if (revocation.subject !== m.d || revocation.account !== this.account) return;
      record.removed = revocation.at;
      record.revocation = m.r;
    }
    return record;
  }

  /** Writes a device's record whole (a new device, or one removed). */
  async put(record: DeviceRecord): Promise<void> {
    await privateDir(this.#dir);
    const id = DeviceBook.fileId(record.did);
    const value = encodeCbor({
      v: FORMAT,
      d: record.did,
      c: record.certificate,
      a: record.added,
      ...(record.revocation ? { r: record.revocation } : {}),
    });
    await writeFileAtomic(join(this.#dir, `${id}.minca`), seal(this.#key, value, this.#aad(id)));
  }
}
