import { describe, expect, it } from 'vitest';
import { HybridClock, MAX_CLOCK_DRIFT_MS } from '../src/clock.js';

describe('hybrid logical clock', () => {
  it('follows the wall clock and never goes back', () => {
    let now = 1000;
    const clock = new HybridClock(() => now);
    expect(clock.tick()).toBe(1000);
    expect(clock.tick()).toBe(1001); // same ms: still later
    now = 500; // the wall clock stepped back
    expect(clock.tick()).toBe(1002);
    now = 5000;
    expect(clock.tick()).toBe(5000);
  });

  it('moves past what it observes, but not into the far future', () => {
    const now = 1000;
    const clock = new HybridClock(() => now);
    clock.observe(2000);
    expect(clock.tick()).toBe(2001);
    clock.observe(now + MAX_CLOCK_DRIFT_MS + 1);
    expect(clock.tick()).toBe(2002);
  });

  it('reads the time without taking a tick, never before its last timestamp', () => {
    let now = 1000;
    const clock = new HybridClock(() => now);
    expect(clock.read()).toBe(1000);
    expect(clock.tick()).toBe(1000);
    clock.observe(3000);
    expect(clock.read()).toBe(3000);
    expect(clock.tick()).toBe(3001);
    now = 9000.7;
    expect(clock.read()).toBe(9000);
  });
});
