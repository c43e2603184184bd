import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/bytes.js';
import { encodeCbor } from '../../src/encoding.js';
import {
  CHUNK_BYTES,
  chunkMatches,
  decodeList,
  encodeList,
  openChunk,
  sealFile,
} from '../../src/files/chunks.js';
import { randomKey } from '../../src/seal.js';

const bytesOf = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + 7) & 255);

describe('file chunks (spec 05 §16.6)', () => {
  it('seals 256 KiB chunks whose hashes make the list, and the list hash is the id', () => {
    const key = randomKey();
    const bytes = bytesOf(CHUNK_BYTES * 2 + 10);
    const { list, chunks } = sealFile(key, bytes);
    expect(chunks.map((c) => c.length)).toEqual([CHUNK_BYTES + 40, CHUNK_BYTES + 40, 50]);
    expect(list.id).toBe(toHex(sha256(list.bytes)));
    expect(list.hashes.map(toHex)).toEqual(chunks.map((c) => toHex(sha256(c))));
    const again = decodeList(list.bytes, list.id);
    expect(again.size).toBe(bytes.length);
    for (const [n, c] of chunks.entries()) expect(chunkMatches(again, n, c)).toBe(true);
    const plain = chunks.map((c, n) => openChunk(key, bytes.length, n, c));
    expect(Buffer.concat(plain).equals(Buffer.from(bytes))).toBe(true);
  });

  it('gives an empty file an empty list', () => {
    const { list, chunks } = sealFile(randomKey(), new Uint8Array());
    expect(chunks).toEqual([]);
    expect(decodeList(list.bytes, list.id).hashes).toEqual([]);
  });

  it('refuses a list that does not hash to the id, or is not one a writer makes', () => {
    const { list } = sealFile(randomKey(), bytesOf(100));
    const other = sealFile(randomKey(), bytesOf(100)).list;
    expect(() => decodeList(other.bytes, list.id)).toThrow(/does not hash to the file id/);
    const wrongCount = encodeList(CHUNK_BYTES + 1, list.hashes);
    expect(() => decodeList(wrongCount)).toThrow(/hash count/);
    const extra = encodeCbor({ v: 1, s: 100, h: list.hashes, x: 1 });
    expect(() => decodeList(extra)).toThrow(/fields/);
    expect(() => decodeList(new Uint8Array([0xff]))).toThrow(/decode/);
    expect(() => decodeList(other.bytes, list.id)).toThrow(
      expect.objectContaining({ code: 'invalid_input' }),
    );
  });

  it('refuses a chunk of the wrong length or hash, or out of its place', () => {
    const key = randomKey();
    const { list, chunks } = sealFile(key, bytesOf(CHUNK_BYTES + 5));
    const tampered = chunks[0]!.slice();
    tampered[100]! ^= 1;
    expect(chunkMatches(list, 0, tampered)).toBe(false);
    expect(chunkMatches(list, 1, chunks[0]!)).toBe(false);
    expect(chunkMatches(list, 2, chunks[1]!)).toBe(false);
    expect(chunkMatches(list, 0, chunks[0]!.subarray(1))).toBe(false);
    // A chunk moved to another place does not open there, even under the right key.
    expect(() => openChunk(key, CHUNK_BYTES + 5, 1, chunks[0]!)).toThrow(/does not open/);
    expect(() => openChunk(randomKey(), CHUNK_BYTES + 5, 0, chunks[0]!)).toThrow(/does not open/);
  });
});
