import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { CollectionState, type VersionMeta } from '../src/record-state.js';

/** A random history: each version supersedes some earlier ones of its record, as a writer would. */
const history = fc
  .array(
    fc.record({
      record: fc.constantFrom('a', 'b', 'c'),
      ts: fc.integer({ min: 0, max: 20 }),
      pick: fc.nat(),
      del: fc.boolean(),
    }),
    {
      minLength: 1,
      maxLength: 40,
    },
  )
  .map((steps) => {
    const out: VersionMeta[] = [];
    steps.forEach((s, i) => {
      const earlier = out.filter((m) => m.record === s.record);
      const supersedes = earlier.filter((_, j) => (s.pick >> j) & 1).map((m) => m.id);
      out.push({
        id: i.toString(16).padStart(64, '0'),
        record: s.record,
        supersedes,
        timestamp: s.ts,
        author: 'did:key:x',
        files: [],
        deleted: s.del,
      });
    });
    return out;
  });

const summary = (metas: readonly VersionMeta[]) => {
  const state = new CollectionState();
  for (const m of metas) state.add(m);
  return [...state.records.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([id, r]) => ({
      id,
      heads: r.heads.map((m) => m.id).sort(),
      winner: r.winner()?.id,
      conflicts: r.conflicts().map((m) => m.id),
    }));
};

describe('record heads and winners', () => {
  test.prop([
    history.chain((h) =>
      fc.tuple(
        fc.constant(h),
        fc.shuffledSubarray(h, { minLength: h.length, maxLength: h.length }),
      ),
    ),
  ])('are the same whatever order the versions arrive in', ([inOrder, shuffled]) => {
    expect(summary(shuffled)).toEqual(summary(inOrder));
    // Adding a version twice changes nothing.
    expect(summary([...shuffled, ...inOrder])).toEqual(summary(inOrder));
  });

  test.prop([history])(
    'has as heads exactly the versions nothing supersedes, and the latest wins',
    (metas) => {
      const superseded = new Set(metas.flatMap((m) => m.supersedes));
      for (const r of summary(metas)) {
        const mine = metas.filter((m) => m.record === r.id);
        expect(r.heads).toEqual(
          mine
            .filter((m) => !superseded.has(m.id))
            .map((m) => m.id)
            .sort(),
        );
        const best = mine
          .filter((m) => r.heads.includes(m.id))
          .sort((x, y) => y.timestamp - x.timestamp || (x.id < y.id ? 1 : -1))[0];
        expect(r.winner).toBe(best?.id);
        expect(r.conflicts).toHaveLength(r.heads.length - 1);
      }
    },
  );
});
