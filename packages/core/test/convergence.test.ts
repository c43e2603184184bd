// Property: whatever nodes write, however the network splits, delays and reorders, once they can
// all reach each other they hold the same records, conflicts and fingerprint.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { MincaNode } from '../src/node.js';
import type { Peer } from '../src/sync/peer.js';
import { connect, converged, newNode, sharedSpace } from './sync-helpers.js';

type Step =
  | { op: 'put' | 'delete'; node: number; record: number; value: number }
  | { op: 'link' | 'cut'; a: number; b: number }
  | { op: 'pause'; ms: number };

const step = (n: number): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        op: fc.constant('put' as const),
        node: fc.nat(n - 1),
        record: fc.nat(4),
        value: fc.nat(1000),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('delete' as const),
        node: fc.nat(n - 1),
        record: fc.nat(4),
        value: fc.constant(0),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('link' as const),
        a: fc.nat(n - 1),
        b: fc.nat(n - 1),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ op: fc.constant('cut' as const), a: fc.nat(n - 1), b: fc.nat(n - 1) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('pause' as const),
        ms: fc.integer({ min: 0, max: 30 }),
      }),
    },
  );

const scenario = fc
  .integer({ min: 3, max: 6 })
  .chain((n) => fc.tuple(fc.constant(n), fc.array(step(n), { minLength: 5, maxLength: 40 })));

async function view(node: MincaNode, space: string) {
  const records = await node.records.list(space, 'app.doc');
  return {
    fingerprint: (await node.spaces.status(space)).fingerprint,
    records: records.map((r) => ({
      id: r.id,
      body: r.body,
      version: r.version,
      conflicts: [...r.conflicts].sort(),
    })),
  };
}

describe('convergence', () => {
  test.prop([scenario], { numRuns: 12, endOnFailure: true })(
    '3–6 nodes under random writes, deletes, partitions and delays end the same',
    async ([n, steps]) => {
      const nodes: MincaNode[] = [];
      for (let i = 0; i < n; i++) nodes.push(await newNode());
      try {
        const space = await sharedSpace(nodes[0]!, nodes.slice(1));
        const links = new Map<string, Peer>();
        const delay = () => Math.random() * 8;
        for (const s of steps) {
          if (s.op === 'put') {
            await nodes[s.node]!.records.put(
              space,
              'app.doc',
              { v: s.value, by: s.node },
              { id: `r${s.record}` },
            );
          } else if (s.op === 'delete') {
            await nodes[s.node]!.records.delete(space, 'app.doc', `r${s.record}`);
          } else if (s.op === 'link' && s.a !== s.b && !links.has(`${s.a}-${s.b}`)) {
            const [pa] = connect(nodes[s.a]!, nodes[s.b]!, { delay });
            links.set(`${s.a}-${s.b}`, pa);
          } else if (s.op === 'cut') {
            links.get(`${s.a}-${s.b}`)?.close('partition');
            links.delete(`${s.a}-${s.b}`);
          } else if (s.op === 'pause') {
            await new Promise((r) => setTimeout(r, s.ms));
          }
        }
        // Heal: a chain through every node, on top of whatever links remain.
        for (let i = 0; i + 1 < n; i++) connect(nodes[i]!, nodes[i + 1]!, { delay });
        await converged(nodes, space, 20_000);
        const first = await view(nodes[0]!, space);
        for (const node of nodes.slice(1)) expect(await view(node, space)).toEqual(first);
      } finally {
        for (const node of nodes) await node.close();
      }
    },
    240_000,
  );
});
