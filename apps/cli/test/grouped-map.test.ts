// The map a host's policy and fleet find one account's entries in: each entry in its group, and
// only there, through sets that move it to another group and deletes.
import { describe, expect, it } from 'vitest';
import { GroupedMap } from '../src/host/grouped-map.ts';

describe('a grouped map', () => {
  it('finds entries by key and by group, as set, moved and deleted', () => {
    const held = new GroupedMap<{ account: string; n: number }>((v) => v.account);
    held.set('s1', { account: 'a', n: 1 });
    held.set('s2', { account: 'a', n: 2 });
    held.set('s3', { account: 'b', n: 3 });
    expect(held.keysOf('a')).toEqual(['s1', 's2']);
    expect(held.valuesOf('b')).toEqual([{ account: 'b', n: 3 }]);
    expect(held.keysOf('c')).toEqual([]);

    // Set again under another group: it leaves the first.
    held.set('s2', { account: 'b', n: 20 });
    expect(held.keysOf('a')).toEqual(['s1']);
    expect(held.keysOf('b')).toEqual(['s3', 's2']);
    expect(held.get('s2')).toEqual({ account: 'b', n: 20 });
    expect(held.size).toBe(3);

    expect(held.delete('s1')).toBe(true);
    expect(held.delete('s1')).toBe(false);
    expect(held.keysOf('a')).toEqual([]);
    expect(held.has('s1')).toBe(false);
    expect([...held.keys()]).toEqual(['s3', 's2']);
    expect([...held.values()].map((v) => v.n)).toEqual([3, 20]);
  });
});
