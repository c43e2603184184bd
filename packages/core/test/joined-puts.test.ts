// Puts made while an earlier write of the space is under way wait for it together and are written
// as one (spec 05 §4 "Puts made at once"): one commit for many, each put answered with its own
// record, one put's failure its own, and a write queued between puts keeping its place.
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../src/body.js';
import { isMincaError } from '../src/errors.js';
import { countingCommits } from './fake-adapter.js';
import { nodeFixture } from './sync-helpers.js';

const { make } = nodeFixture();

/** A node over stores that take 20 ms per commit, a space of its own, and the commits' sizes. */
async function slowNode() {
  const { factory, commits } = countingCommits(20);
  const node = await make({ stores: factory });
  const space = (await node.spaces.create()).id;
  commits.length = 0;
  return { node, space, commits };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('puts made at once', () => {
  it('are written together, in fewer commits than puts, each answered with its own record', async () => {
    const { node, space, commits } = await slowNode();
    const first = node.records.put(space, 'app.post', { i: -1 });
    await settle(); // its commit under way
    const records = await Promise.all(
      Array.from({ length: 200 }, (_, i) => node.records.put(space, 'app.post', { i })),
    );
    await first;
    expect(records.map((r) => r.body)).toEqual(Array.from({ length: 200 }, (_, i) => ({ i })));
    expect(new Set(records.map((r) => r.id)).size).toBe(200);
    // New records joined into one write get ids in the order they were put, as putMany's do.
    const ids = records.map((r) => r.id);
    expect([...ids].sort()).toEqual(ids);
    expect(commits.reduce((a, b) => a + b, 0)).toBe(201);
    expect(commits.length).toBeLessThanOrEqual(3);
    for (const record of records.slice(0, 20))
      expect(await node.records.get(space, 'app.post', record.id)).toEqual(record);
    expect(await node.records.list(space, 'app.post')).toHaveLength(201);
  });

  it("fail one by one: a body refused fails its own put, not the others'", async () => {
    const { node, space } = await slowNode();
    const first = node.records.put(space, 'app.post', { first: true });
    await settle();
    const outcomes = await Promise.allSettled([
      node.records.put(space, 'app.post', { n: 1 }),
      node.records.put(space, 'app.post', { text: 'x'.repeat(MAX_BODY_BYTES + 1) }),
      node.records.put(space, 'app.note', { n: 3 }),
    ]);
    await first;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = (outcomes[1] as PromiseRejectedResult).reason;
    expect(isMincaError(refused) && refused.code).toBe('too_large');
    expect(await node.records.list(space, 'app.post')).toHaveLength(2);
    expect(await node.records.list(space, 'app.note')).toHaveLength(1);
  });

  it('give an id put twice two versions, the second superseding the first', async () => {
    const { node, space } = await slowNode();
    const first = node.records.put(space, 'app.post', { first: true });
    await settle();
    const [a, b] = await Promise.all([
      node.records.put(space, 'app.post', { n: 1 }, { id: 'same' }),
      node.records.put(space, 'app.post', { n: 2 }, { id: 'same' }),
    ]);
    await first;
    expect(a!.body).toEqual({ n: 1 });
    expect(b!.body).toEqual({ n: 2 });
    const now = await node.records.get(space, 'app.post', 'same');
    expect(now?.body).toEqual({ n: 2 });
    expect(now?.conflicts).toEqual([]);
  });

  it('keep a write queued between them in its place', async () => {
    const { node, space } = await slowNode();
    const first = node.records.put(space, 'app.post', { first: true });
    await settle();
    // Joined to the put before it, the last put would be written before putMany and lose to it.
    const writes = [
      node.records.put(space, 'app.post', { n: 1 }, { id: 'same' }),
      node.records.putMany(space, 'app.post', [{ id: 'same', body: { n: 2 } }]),
      node.records.put(space, 'app.post', { n: 3 }, { id: 'same' }),
    ];
    await Promise.all([first, ...writes]);
    const now = await node.records.get(space, 'app.post', 'same');
    expect(now?.body).toEqual({ n: 3 });
    expect(now?.conflicts).toEqual([]);
  });
});
