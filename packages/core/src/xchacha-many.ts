/**
 * XChaCha20-Poly1305 openings and sealings gathered to run together, on the platform's cores
 * where it runs many at once (`PlatformAead.openMany`, `sealMany`, see `primitives.ts`), else
 * one by one as they come: the same bytes either way.
 */
import { MincaError } from './errors.js';
import type { AeadBatch } from './keys.js';
import { manyAtOnce, withSubkey, xchachaOpen, xchachaSeal } from './primitives.js';

/**
 * Fewer openings than this are done as they come: a round trip to a worker costs about as much
 * as opening a few bodies here, and a record read alone should not wait for one.
 */
export const OPEN_MANY_AT_LEAST = 16;

/**
 * XChaCha20-Poly1305 openings gathered to open together, on the platform's cores where it
 * opens many at once (`PlatformAead.openMany`): each subkey is made here, into the batch, and
 * the associated data and sealed value copied there as they come. Without such a platform, or
 * for fewer than {@link OPEN_MANY_AT_LEAST}, each is opened as it comes.
 */
export class XChaChaOpenings {
  readonly #opened: Array<Uint8Array | undefined> = [];
  readonly #batch: AeadBatch | undefined;
  readonly #openMany = manyAtOnce().openMany;
  #at = 0;

  /** For up to `count` openings of `bytes` of associated data and sealed values at most. */
  constructor(count: number, bytes: number) {
    if (this.#openMany && count >= OPEN_MANY_AT_LEAST)
      this.#batch = {
        count: 0,
        keys: new Uint8Array(32 * count),
        nonces: new Uint8Array(12 * count),
        bytes: new Uint8Array(bytes),
        ends: new Uint32Array(2 * count),
      };
  }

  /** Adds an opening of `sealed` (ciphertext ‖ tag) under `key` and the 24-byte `nonce`. */
  add(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array): void {
    const batch = this.#batch;
    if (!batch) {
      let plain: Uint8Array | undefined;
      try {
        plain = xchachaOpen(key, nonce, sealed, aad);
      } catch {
        // The tag does not match.
      }
      this.#opened.push(plain);
      return;
    }
    const i = batch.count++;
    withSubkey(key, nonce, (subkey, iv) => {
      batch.keys.set(subkey, 32 * i);
      batch.nonces.set(iv, 12 * i);
    });
    batch.bytes.set(aad, this.#at);
    batch.ends[2 * i] = this.#at += aad.length;
    batch.bytes.set(sealed, this.#at);
    batch.ends[2 * i + 1] = this.#at += sealed.length;
  }

  /**
   * The plaintexts, in the order added, `undefined` where the tag does not match. Rejects when
   * the platform fails; the batch is then gone, and the caller opens what it holds another way.
   */
  async open(): Promise<Array<Uint8Array | undefined>> {
    if (!this.#batch || !this.#openMany) return this.#opened;
    return this.#openMany(this.#batch);
  }
}

/**
 * XChaCha20-Poly1305 sealings gathered to seal together, off this thread where the platform
 * seals many at once (`PlatformAead.sealMany`), each written where its caller asked. Each
 * subkey is made here as it comes, and the associated data and plaintext copied into the batch.
 * Without such a platform, or for fewer than {@link OPEN_MANY_AT_LEAST}, each is sealed as it
 * comes.
 */
export class XChaChaSealings {
  readonly #sealMany = manyAtOnce().sealMany;
  readonly #where: Array<{ out: Uint8Array; at: number; length: number }> = [];
  readonly #keys: Uint8Array<ArrayBuffer> | undefined;
  readonly #nonces = new Uint8Array(0);
  #bytes = new Uint8Array(0);
  #ends: number[] = [];
  #at = 0;

  /** For up to `count` sealings. */
  constructor(readonly count: number) {
    if (this.#sealMany && count >= OPEN_MANY_AT_LEAST) {
      this.#keys = new Uint8Array(32 * count);
      this.#nonces = new Uint8Array(12 * count);
    }
  }

  /**
   * Seals `plaintext` under `key` and the 24-byte `nonce`, its ciphertext ‖ tag written into
   * `out` at `at`: now, or by {@link seal}.
   */
  add(
    key: Uint8Array,
    nonce: Uint8Array,
    plaintext: Uint8Array,
    aad: Uint8Array,
    out: Uint8Array,
    at: number,
  ): void {
    const keys = this.#keys;
    if (!keys) {
      out.set(xchachaSeal(key, nonce, plaintext, aad), at);
      return;
    }
    const i = this.#where.length;
    if (i >= this.count) throw new RangeError(`more than ${this.count} sealings`);
    withSubkey(key, nonce, (subkey, iv) => {
      keys.set(subkey, 32 * i);
      this.#nonces.set(iv, 12 * i);
    });
    this.#put(aad);
    this.#put(plaintext);
    this.#where.push({ out, at, length: plaintext.length + 16 });
  }

  #put(part: Uint8Array): void {
    if (this.#at + part.length > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(2 * this.#bytes.length, this.#at + part.length, 4096));
      grown.set(this.#bytes.subarray(0, this.#at));
      this.#bytes = grown;
    }
    this.#bytes.set(part, this.#at);
    this.#ends.push((this.#at += part.length));
  }

  /** Wipes the subkeys made so far, for sealings that will not be sealed after all. */
  discard(): void {
    this.#keys?.fill(0);
  }

  /**
   * Writes every sealing added, once (the batch then belongs to the platform). Rejects
   * (`unavailable`) when the platform fails: a caller's write then fails whole, as when its
   * signatures can't be made.
   */
  async seal(): Promise<void> {
    const where = this.#where;
    if (!this.#keys || !this.#sealMany || where.length === 0) return;
    const sealed = await this.#sealMany({
      count: where.length,
      keys: this.#keys,
      nonces: this.#nonces as Uint8Array<ArrayBuffer>,
      bytes: this.#bytes.subarray(0, this.#at) as Uint8Array<ArrayBuffer>,
      ends: Uint32Array.from(this.#ends),
    });
    if (sealed.length !== where.length || where.some((w, i) => sealed[i]?.length !== w.length))
      throw new MincaError('unavailable', 'the platform sealed other lengths than it was given');
    where.forEach(({ out, at }, i) => {
      out.set(sealed[i]!, at);
    });
  }
}
