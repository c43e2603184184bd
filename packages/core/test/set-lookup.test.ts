// Whether a collection set holds a version, by id alone (CollectionSet.hasId): looked up by the
// id's first 8 bytes, a hit confirmed against the whole id, so ids that share those bytes, or
// differ from one held in their last digit, are told apart, and a string that is not an id is
// never held.
import { randomBytes } from '@noble/ciphers/utils.js';
import { describe, expect, it } from 'vitest';
import { toHex } from '../src/bytes.js';
import { CollectionSet } from '../src/collection-set.js';
import { ItemBuffer } from '../src/negentropy/item-buffer.js';

describe('a collection set asked whether it holds an id', () => {
  const ids = Array.from({ length: 2_000 }, () => randomBytes(32));
  // Twins: each shares its first 8 bytes with a held id, and is not held itself.
  const twins = ids.slice(0, 100).map((id) => {
    const twin = id.slice();
    twin[31] = twin[31]! ^ 1;
    twin[20] = twin[20]! ^ 0x80;
    return twin;
  });
  // And some held ids that share their first 8 bytes with another held one.
  const siblings = ids.slice(100, 150).map((id) => {
    const sibling = randomBytes(32);
    sibling.set(id.subarray(0, 8));
    return sibling;
  });
  const buffer = new ItemBuffer();
  for (const [i, id] of [...ids, ...siblings].entries()) buffer.push(1_000 + (i % 7), id);
  const set = CollectionSet.of('app.post', buffer.take());

  it('holds every id it took, siblings sharing their first 8 bytes included', () => {
    for (const id of [...ids, ...siblings]) expect(set.hasId(toHex(id))).toBe(true);
  });

  it('does not hold ids it never took, even those sharing a held id’s first 8 bytes', () => {
    for (const id of twins) expect(set.hasId(toHex(id))).toBe(false);
    for (let i = 0; i < 500; i++) expect(set.hasId(toHex(randomBytes(32)))).toBe(false);
  });

  it('holds no string that is not 64 lowercase hex digits', () => {
    const held = toHex(ids[0]!);
    expect(set.hasId(held.toUpperCase())).toBe(false);
    expect(set.hasId(`${held.slice(0, 16)}${'z'.repeat(48)}`)).toBe(false);
    expect(set.hasId(`${held.slice(0, 63)}g`)).toBe(false);
    expect(set.hasId(held.slice(0, 62))).toBe(false);
    expect(set.hasId(`${held}00`)).toBe(false);
    expect(set.hasId('')).toBe(false);
  });
});
