import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/bytes.ts';
import { encodeCbor } from '../../src/encoding.ts';
import { hashId, randomId } from '../../src/ids.ts';
import {
  decodeSegment,
  encodeSegment,
  MAX_SEGMENT_BYTES,
  parseSegmentKey,
} from '../../src/mirror/segment.ts';

const space = randomId();
const writer = randomId();
const versions = [new Uint8Array([1, 2, 3]), new Uint8Array(1000).fill(7)];

describe('segments', () => {
  it('round-trips, named by space, writer, padded counter and hash', () => {
    const { key, bytes } = encodeSegment({ space, writer, counter: 42, versions });
    expect(key).toMatch(new RegExp(`^${space}/${writer}/0000000042-[0-9a-f]{16}$`));
    const name = parseSegmentKey(key)!;
    expect(name).toMatchObject({ space, writer, counter: 42 });
    expect(decodeSegment(name, bytes)).toEqual({ space, writer, counter: 42, versions });
  });

  it('names differ for different contents under one counter', () => {
    const a = encodeSegment({ space, writer, counter: 1, versions: [versions[0]!] });
    const b = encodeSegment({ space, writer, counter: 1, versions: [versions[1]!] });
    expect(a.key).not.toBe(b.key);
  });

  it('reads a conflict copy by the name it starts with, and skips other keys', () => {
    const { key } = encodeSegment({ space, writer, counter: 3, versions });
    expect(parseSegmentKey(`${key}.sync-conflict-20261202-101010-ABCDEFG`)?.counter).toBe(3);
    for (const other of [
      `${space}/${writer}`,
      `${space}/${writer}/x`,
      `${space}/${writer}/12-abc`,
      `${space}/not-a-writer/0000000001-0123456789abcdef`,
      `files/${space}/${writer}/0000000001-0123456789abcdef`,
    ])
      expect(parseSegmentKey(other)).toBeUndefined();
  });

  it('rejects damaged, misplaced and oversized segments as malformed', () => {
    const { key, bytes } = encodeSegment({ space, writer, counter: 5, versions });
    const name = parseSegmentKey(key)!;
    const flipped = bytes.slice();
    flipped[10]! ^= 1;
    const moved = { ...name, writer: randomId() };
    for (const [n, b] of [
      [name, bytes.subarray(0, bytes.length - 1)],
      [name, flipped],
      [moved, bytes],
      [name, new Uint8Array(MAX_SEGMENT_BYTES + 1)],
    ] as const)
      expect(() => decodeSegment(n, b)).toThrow(expect.objectContaining({ code: 'malformed' }));
  });

  it('rejects a segment that hashes to its name but says something else', () => {
    for (const value of [
      { f: 1, s: space, w: writer, n: 6, v: [] },
      { f: 2, s: space, w: writer, n: 6, v: versions },
      { f: 1, s: space, w: writer, n: 6, v: ['text'] },
      { f: 1, s: space, w: writer, n: 7, v: versions },
      { f: 1, s: space, w: writer, n: 6, v: versions, x: 1 },
    ]) {
      const bytes = encodeCbor(value);
      // Named after its own hash, as a writer would name it.
      const name = { key: 'k', space, writer, counter: 6, hash: hashOf(bytes) };
      expect(() => decodeSegment(name, bytes)).toThrow(
        expect.objectContaining({ code: 'malformed' }),
      );
    }
  });
});

function hashOf(bytes: Uint8Array): string {
  return toHex(hashId(bytes)).slice(0, 16);
}
