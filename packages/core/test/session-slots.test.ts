// The node's session slots (spec 06 §4.1 "Sessions at once"): at most `limit` run, at most
// `perConnection` of one connection's; the rest wait, connections in turn, each one's sessions
// in the order they asked.
import { describe, expect, it } from 'vitest';
import { SessionSlots } from '../src/sync/session-slots.js';

/** Slots, and the sessions they started after waiting, as `connection/space`. */
function slotsOf(limit: number, perConnection?: number) {
  const slots = new SessionSlots(limit, perConnection);
  const started: string[] = [];
  const take = (peer: number, space: string) =>
    slots.take(peer, space, () => started.push(`${peer}/${space}`));
  return { slots, started, take };
}

describe('session slots', () => {
  it('runs at most the limit; the rest start in the order they asked, as slots free', () => {
    const { slots, started, take } = slotsOf(2);
    expect([take(1, 'a'), take(1, 'b'), take(1, 'c'), take(1, 'd')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    // Asking again keeps a running slot, and a waiting place.
    expect([take(1, 'a'), take(1, 'c')]).toEqual([true, false]);
    expect([slots.running, slots.waiting]).toEqual([2, 2]);
    slots.ended(1, 'b');
    expect(started).toEqual(['1/c']);
    expect(take(1, 'c')).toBe(true);
    // One waiting keeps its place when it ends nothing; dropped, it is forgotten.
    slots.ended(1, 'd');
    slots.drop(1, 'd');
    slots.ended(1, 'a');
    expect(started).toEqual(['1/c']);
    expect([slots.running, slots.waiting]).toEqual([1, 0]);
  });

  it('a connection takes no more than its share; those waiting take turns', () => {
    const { slots, started, take } = slotsOf(4, 2);
    // Connection 1 asks for four: it runs two, though two more slots are free.
    for (const space of ['a', 'b', 'c', 'd']) take(1, space);
    expect([slots.running, slots.waiting]).toEqual([2, 2]);
    // Another connection gets the free slots at once, then waits too.
    expect([take(2, 'x'), take(2, 'y'), take(3, 'p'), take(3, 'q')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    // Freed slots go to the connections waiting in turn, not all to the first.
    slots.ended(1, 'a');
    slots.ended(2, 'x');
    slots.ended(2, 'y');
    expect(started).toEqual(['1/c', '3/p', '3/q']);
    // A connection that ends lets go of what it held and waited for.
    slots.dropConnection(1);
    expect(started).toEqual(['1/c', '3/p', '3/q']);
    expect([slots.running, slots.waiting]).toEqual([2, 0]);
  });
});
