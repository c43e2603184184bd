// Checking chunks against their list with WebCrypto's SHA-256 where there is one, and
// @noble/hashes where not: the same answers either way.
import { sha256 } from '@noble/hashes/sha2.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chunkChecks, hashChunk } from '../../src/files/chunk-hash.js';
import { CHUNK_BYTES, chunkMatches, sealFile } from '../../src/files/chunks.js';
import { randomKey } from '../../src/seal.js';
import { sample } from './files-helpers.js';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

const file = sealFile(randomKey(), sample(2 * CHUNK_BYTES + 5, 4));

describe('chunk hashes', () => {
  it('gives the SHA-256 noble gives, for any size and for views into larger buffers', async () => {
    const big = sample(CHUNK_BYTES + 1000, 5);
    for (const bytes of [
      new Uint8Array(0),
      sample(1, 1),
      sample(100, 2),
      big,
      big.subarray(7, 70_007),
    ])
      expect(await hashChunk(bytes)).toEqual(sha256(bytes));
  });

  it('says what chunkMatches says: length, place and hash', async () => {
    const { list, chunks } = file;
    const flipped = chunks[1]!.slice();
    flipped[3]! ^= 1;
    const cases: Array<[number, Uint8Array]> = [
      [0, chunks[0]!],
      [2, chunks[2]!],
      [1, chunks[0]!],
      [1, flipped],
      [2, chunks[2]!.subarray(1)],
      [3, chunks[2]!],
      [-1, chunks[0]!],
    ];
    for (const [n, sealed] of cases)
      expect(await chunkChecks(list, n, sealed), `chunk ${n}`).toBe(chunkMatches(list, n, sealed));
  });

  it('falls back to noble where the runtime has no WebCrypto', async () => {
    vi.stubGlobal('crypto', undefined);
    vi.resetModules();
    const fresh = await import('../../src/files/chunk-hash.js');
    expect(await fresh.hashChunk(file.chunks[0]!)).toEqual(sha256(file.chunks[0]!));
    expect(await fresh.chunkChecks(file.list, 0, file.chunks[0]!)).toBe(true);
    expect(await fresh.chunkChecks(file.list, 0, file.chunks[1]!)).toBe(false);
  });

  it('falls back to noble where WebCrypto gives another digest', async () => {
    vi.stubGlobal('crypto', { subtle: { digest: async () => new ArrayBuffer(32) } });
    vi.resetModules();
    const fresh = await import('../../src/files/chunk-hash.js');
    expect(await fresh.hashChunk(file.chunks[2]!)).toEqual(sha256(file.chunks[2]!));
  });
});
