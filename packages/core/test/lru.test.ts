import { describe, expect, it } from 'vitest';
import { LruBodyCache } from '../src/lru.js';

describe('LruBodyCache', () => {
  it('drops exactly the body used longest ago, through hits, sets again and deletes', () => {
    for (const capacity of [1, 2, 3, 17, 200]) {
      const cache = new LruBodyCache(capacity);
      // The model: most recently used last.
      let model: string[] = [];
      let seed = capacity;
      const next = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      for (let step = 0; step < 20_000; step++) {
        const id = `v${next(capacity * 3)}`;
        const op = next(10);
        if (op < 5) {
          cache.set(id, new Uint8Array([step % 256]));
          model = [...model.filter((m) => m !== id), id];
          if (model.length > capacity) model.shift();
        } else if (op < 9) {
          const hit = cache.get(id) !== undefined;
          expect(hit).toBe(model.includes(id));
          if (hit) model = [...model.filter((m) => m !== id), id];
        } else {
          cache.delete(id);
          model = model.filter((m) => m !== id);
        }
        expect(cache.size).toBe(model.length);
      }
      for (const id of model) expect(cache.get(id)).toBeDefined();
    }
  });

  it('holds no more bytes than it is given, dropping the bodies used longest ago', () => {
    const cache = new LruBodyCache(1000, 1000);
    let model: Array<[string, number]> = [];
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let step = 0; step < 5000; step++) {
      const id = `v${next(60)}`;
      if (next(3) > 0) {
        const size = 1 + next(400);
        cache.set(id, new Uint8Array(size));
        model = [...model.filter(([m]) => m !== id), [id, size]];
        while (model.reduce((sum, [, n]) => sum + n, 0) > 1000) model.shift();
      } else if (cache.get(id)) {
        model = [...model.filter(([m]) => m !== id), model.find(([m]) => m === id)!];
      }
      expect(cache.bytes).toBe(model.reduce((sum, [, n]) => sum + n, 0));
      expect(cache.bytes).toBeLessThanOrEqual(1000);
      expect(cache.size).toBe(model.length);
    }
    // A body larger than the whole budget is not kept, and pushes nothing out.
    const [size, bytes] = [cache.size, cache.bytes];
    expect(size).toBeGreaterThan(0);
    cache.set('huge', new Uint8Array(1001));
    expect(cache.get('huge')).toBeUndefined();
    expect([cache.size, cache.bytes]).toEqual([size, bytes]);
  });

  it('keeps a view of a larger buffer as bytes of its own, counted as such', () => {
    const cache = new LruBodyCache(10, 10_000);
    const message = new Uint8Array(100_000).fill(7);
    cache.set('a', message.subarray(500, 800));
    const kept = cache.get('a')!;
    expect(kept.buffer.byteLength).toBe(300);
    expect(kept).toEqual(message.subarray(500, 800));
    expect(cache.bytes).toBe(300);
    cache.delete('a');
    expect(cache.bytes).toBe(0);
    // A body in a buffer of its own is kept as it is, not copied.
    const own = new Uint8Array(300);
    cache.set('b', own);
    expect(cache.get('b')).toBe(own);
  });

  it('refuses a budget below nothing', () => {
    expect(() => new LruBodyCache(10, -1)).toThrow(RangeError);
  });
});
