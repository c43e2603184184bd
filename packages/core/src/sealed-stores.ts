/**
 * The sealing wrapper: a store factory whose stores keep only ciphertext in the inner factory.
 *
 * Values and version bodies are sealed (XChaCha20-Poly1305, `./seal.ts`) with AAD naming their
 * store path and key or version id, so nothing can be moved to another key or store unnoticed.
 * Entry keys are encrypted part by part (`/`-separated) with a deterministic SIV construction
 * bound to the path so far, so `list(prefix)` still maps to an inner prefix listing. Version ids
 * become a keyed hash. Layout and reasoning: spec 05, "Sealed stores".
 */
import { xchacha20 } from '@noble/ciphers/chacha.js';
import { bytesToUtf8, equalBytes, utf8ToBytes } from '@noble/ciphers/utils.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base64urlnopad } from '@scure/base';
import type { Commit, EntryWrite, StorageAdapter, StoreFactory, VersionKey } from './adapter.js';
import { MincaError } from './errors.js';
import { KEY_BYTES, open, seal } from './seal.js';
import { readEntries, readVersions } from './store-io.js';

const SALT = utf8ToBytes('minca sealed-stores v1');
/** Bytes of the synthetic IV in front of each encrypted key part. */
const NAME_IV_BYTES = 24;
/** A lone surrogate can't round-trip through UTF-8, so such a key is refused. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function derive(key: Uint8Array, label: string, path = ''): Uint8Array {
  return hkdf(sha256, key, SALT, utf8ToBytes(`${label}\0${path}`), 32);
}

/** The keys one store path uses, all derived from the factory's key. */
class StoreKeys {
  readonly path: string;
  readonly #values: Uint8Array;
  readonly #nameMac: Uint8Array;
  readonly #nameEnc: Uint8Array;
  readonly #ids: Uint8Array;

  constructor(key: Uint8Array, path: string) {
    this.path = path;
    this.#values = derive(key, 'values');
    this.#nameMac = derive(key, 'name-mac', path);
    this.#nameEnc = derive(key, 'name-enc', path);
    this.#ids = derive(key, 'version-ids', path);
  }

  #aad(kind: 'entry' | 'version', name: string): Uint8Array {
    return utf8ToBytes(`minca-sealed-v1\0${kind}\0${this.path}\0${name}`);
  }

  sealValue(key: string, value: Uint8Array): Uint8Array {
    return seal(this.#values, value, this.#aad('entry', key));
  }

  openValue(key: string, sealed: Uint8Array): Uint8Array {
    return openOrCorrupt(() => open(this.#values, sealed, this.#aad('entry', key)), 'an entry');
  }

  sealBody(id: VersionKey, body: Uint8Array): Uint8Array {
    return seal(this.#values, body, this.#aad('version', id));
  }

  openBody(id: VersionKey, sealed: Uint8Array): Uint8Array {
    return openOrCorrupt(
      () => open(this.#values, sealed, this.#aad('version', id)),
      'a version body',
    );
  }

  /** The inner id of a version: HMAC-SHA256 under the store's id key, as 64 hex. */
  versionId(id: VersionKey): VersionKey {
    if (typeof id !== 'string') throw new TypeError('a version id must be a string');
    return bytesToHex(hmac(sha256, this.#ids, utf8ToBytes(id)));
  }

  /** Encrypts a key part; `upTo` is the plain key up to the end of this part. */
  #sealPart(part: string, upTo: string): string {
    const iv = hmac(sha256, this.#nameMac, utf8ToBytes(upTo)).subarray(0, NAME_IV_BYTES);
    const plain = utf8ToBytes(part);
    const out = new Uint8Array(NAME_IV_BYTES + plain.length);
    out.set(iv);
    out.set(xchacha20(this.#nameEnc, iv, plain), NAME_IV_BYTES);
    return base64urlnopad.encode(out);
  }

  /** The inner key of `key`. */
  sealKey(key: string): string {
    if (typeof key !== 'string') throw new TypeError('a key must be a string');
    if (LONE_SURROGATE.test(key)) throw new TypeError('a key must not hold a lone surrogate');
    const parts = key.split('/');
    let upTo = '';
    return parts
      .map((part, i) => {
        upTo += i === 0 ? part : `/${part}`;
        return this.#sealPart(part, upTo);
      })
      .join('/');
  }

  /** Opens one sealed part; `upTo` is the plain key before it (with its `/`), or '' for the first. */
  #openPart(sealed: string, upTo: string): string {
    let bytes: Uint8Array;
    try {
      bytes = base64urlnopad.decode(sealed);
    } catch (cause) {
      throw new MincaError('corrupt', 'a sealed store holds a key that is not sealed', { cause });
    }
    if (bytes.length < NAME_IV_BYTES) {
      throw new MincaError('corrupt', 'a sealed store holds a key part too short to open');
    }
    const iv = bytes.subarray(0, NAME_IV_BYTES);
    const part = bytesToUtf8(xchacha20(this.#nameEnc, iv, bytes.subarray(NAME_IV_BYTES)));
    // The IV is a MAC of the plain key so far: recomputing it authenticates the part and its place.
    const expected = hmac(sha256, this.#nameMac, utf8ToBytes(upTo + part)).subarray(
      0,
      NAME_IV_BYTES,
    );
    if (!equalBytes(iv, expected)) {
      throw new MincaError(
        'corrupt',
        'a sealed store holds a key that does not open under this key',
      );
    }
    return part;
  }

  /**
   * The plain key of `inner`, a key listed under {@link listPrefix}`(prefix)`, or `undefined`
   * when it is not under `prefix`. The whole parts of `prefix` matched in sealed form, so only
   * the parts after them are opened, and a key is dropped as soon as its first one misses.
   * `corrupt` when a part fails to open.
   */
  openUnder(inner: string, prefix: string): string | undefined {
    const sealed = inner.split('/');
    const cut = prefix.lastIndexOf('/');
    let upTo = cut < 0 ? '' : prefix.slice(0, cut + 1);
    let i = cut < 0 ? 0 : prefix.slice(0, cut).split('/').length;
    if (sealed.length <= i) return undefined;
    upTo += this.#openPart(sealed[i]!, upTo);
    if (!upTo.startsWith(prefix)) return undefined;
    for (i++; i < sealed.length; i++) upTo += `/${this.#openPart(sealed[i]!, `${upTo}/`)}`;
    return upTo;
  }

  /**
   * The inner prefix to list for `prefix`: its whole parts sealed, then `/`. A partial last
   * part can't be sealed, so its parent is listed and the keys filtered once opened.
   */
  listPrefix(prefix: string): string | undefined {
    const cut = prefix.lastIndexOf('/');
    if (cut < 0) return '';
    const whole = prefix.slice(0, cut);
    // No key with a lone surrogate can have been written, so nothing is under it.
    return LONE_SURROGATE.test(whole) ? undefined : `${this.sealKey(whole)}/`;
  }
}

function openOrCorrupt(openIt: () => Uint8Array, what: string): Uint8Array {
  try {
    return openIt();
  } catch (cause) {
    throw new MincaError(
      'corrupt',
      `${what} in a sealed store does not open: tampered, moved, or sealed under another key`,
      { cause },
    );
  }
}

function checkWrites(writes: readonly EntryWrite[]): void {
  if (!Array.isArray(writes)) throw new TypeError('writes must be an array');
  for (const write of writes) {
    if (write?.value !== undefined && !(write.value instanceof Uint8Array)) {
      throw new TypeError('a write value must be a Uint8Array, or undefined to delete');
    }
  }
}

function checkBody(body: Uint8Array): void {
  if (!(body instanceof Uint8Array)) throw new TypeError('a version body must be a Uint8Array');
}

function sealedAdapter(inner: StorageAdapter, keys: StoreKeys): StorageAdapter {
  const sealWrites = (writes: readonly EntryWrite[]): EntryWrite[] => {
    checkWrites(writes);
    return writes.map(({ key, value }) => ({
      key: keys.sealKey(key),
      value: value === undefined ? undefined : keys.sealValue(key, value),
    }));
  };
  const sealVersion = ([id, body]: readonly [VersionKey, Uint8Array]): [VersionKey, Uint8Array] => {
    checkBody(body);
    return [keys.versionId(id), keys.sealBody(id, body)];
  };
  /** Opened keys under `prefix`, each with its inner key, sorted by the plain key. */
  const listed = async (prefix: string) => {
    const found: Array<[string, string]> = [];
    const innerPrefix = keys.listPrefix(prefix);
    if (innerPrefix === undefined) return found;
    for (const innerKey of await inner.list(innerPrefix)) {
      const key = keys.openUnder(innerKey, prefix);
      if (key !== undefined) found.push([key, innerKey]);
    }
    return found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  };

  const adapter: StorageAdapter = {
    async get(key) {
      if (typeof key !== 'string') throw new TypeError('a key must be a string');
      if (LONE_SURROGATE.test(key)) return undefined; // no such key can have been written
      const sealed = await inner.get(keys.sealKey(key));
      return sealed === undefined ? undefined : keys.openValue(key, sealed);
    },
    async list(prefix) {
      if (typeof prefix !== 'string') throw new TypeError('a prefix must be a string');
      return (await listed(prefix)).map(([key]) => key);
    },
    async entries(prefix) {
      if (typeof prefix !== 'string') throw new TypeError('a prefix must be a string');
      const out: Array<[string, Uint8Array]> = [];
      const innerPrefix = keys.listPrefix(prefix);
      if (innerPrefix === undefined) return out;
      for (const [innerKey, sealed] of await readEntries(inner, innerPrefix)) {
        const key = keys.openUnder(innerKey, prefix);
        if (key !== undefined) out.push([key, keys.openValue(key, sealed)]);
      }
      return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    },
    batch: async (writes) => inner.batch(sealWrites(writes)),
    async getVersion(id) {
      const sealed = await inner.getVersion(keys.versionId(id));
      return sealed === undefined ? undefined : keys.openBody(id, sealed);
    },
    async getVersions(ids) {
      const sealed = await readVersions(
        inner,
        ids.map((id) => keys.versionId(id)),
      );
      return sealed.map((body, i) =>
        body === undefined ? undefined : keys.openBody(ids[i]!, body),
      );
    },
    putVersion: async (id, body) => inner.putVersion(...sealVersion([id, body])),
    deleteVersion: async (id) => inner.deleteVersion(keys.versionId(id)),
    close: async () => inner.close?.(),
  };
  // Only an atomic inner commit makes this one atomic; without it store-io's ordered fallback is right.
  if (inner.commit) {
    const commit = inner.commit.bind(inner);
    adapter.commit = async (c: Commit) =>
      commit({
        versions: c.versions.map(sealVersion),
        entries: sealWrites(c.entries),
        deleteVersions: c.deleteVersions.map((id) => keys.versionId(id)),
      });
  }
  return adapter;
}

/**
 * Wraps `inner` so each of its stores holds only ciphertext: values and version bodies sealed
 * under `key` (32 bytes) and bound to their store path and key or id, entry keys encrypted part
 * by part, version ids hashed. A value, body or key that fails to open is `MincaError('corrupt')`.
 * The factory shares `inner`'s body cache, which holds plaintext bodies.
 */
export function sealedStores(inner: StoreFactory, key: Uint8Array): StoreFactory {
  if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES) {
    throw new TypeError(`key must be a Uint8Array of ${KEY_BYTES} bytes`);
  }
  const secret = key.slice(); // a caller wiping or reusing its array must not change our stores
  const factory: StoreFactory = {
    ...(inner.bodyCache ? { bodyCache: inner.bodyCache } : {}),
    async open(path) {
      if (typeof path !== 'string') throw new TypeError('a store path must be a string');
      return sealedAdapter(await inner.open(path), new StoreKeys(secret, path));
    },
  };
  if (inner.close) factory.close = () => inner.close!();
  return factory;
}
