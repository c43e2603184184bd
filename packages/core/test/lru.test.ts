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
});
