import { describe, expect, it } from 'vitest';
import { SpaceUse } from '../src/node/space-use.js';

describe('SpaceUse', () => {
  it('orders spaces by last use, a space touched again in a row keeping its place', () => {
    let now = 0;
    const use = new SpaceUse(() => now);
    const touch = (id: string) => {
      now++;
      use.touch(id);
    };
    for (const id of ['a', 'b', 'a', 'a', 'c', 'b', 'b']) touch(id);
    expect([...use.leastRecent()]).toEqual(['a', 'c', 'b']);
    expect(use.idleFor('b')).toBe(0);
    expect(use.idleFor('a')).toBe(3);
    use.closed('b');
    expect([...use.leastRecent()]).toEqual(['a', 'c']);
    touch('b');
    touch('a');
    touch('a');
    expect([...use.leastRecent()]).toEqual(['c', 'b', 'a']);
    use.closed('a');
    touch('c');
    expect([...use.leastRecent()]).toEqual(['b', 'c']);
    const end = use.begin('b');
    expect([...use.leastRecent()]).toEqual(['c', 'b']);
    expect(use.inUse('b')).toBe(true);
    end();
    expect(use.inUse('b')).toBe(false);
    expect(use.idleFor('b')).toBe(0);
    expect(use.idleFor('gone')).toBe(Number.POSITIVE_INFINITY);
  });
});
