// The files' timing rules, on a fake clock: fetching ahead ~2 s after records change, the
// 10-minute rest for a file nobody had, reads asking again, dropping what nothing names.
import { describe, expect, it } from 'vitest';
import type { FileRef } from '../../src/file-ref.js';
import { CHUNK_BYTES } from '../../src/files/chunks.js';
import { FILE_REQUEST_TIMEOUT_MS } from '../../src/files/source.js';
import type { MincaNode } from '../../src/node.js';
import { nodeFixture, sharedSpace } from '../sync-helpers.js';
import { advance, within } from './clock.js';
import { asks, level, link, same, sample, whole } from './files-helpers.js';

const { make } = nodeFixture({ fakeClock: true });
const holds = async (n: MincaNode, s: string, id: string) => (await whole(n, s)).has(id);

/**
 * A's record names a file (`bytes`) only A has; A leaves after C has the record. B meets only
 * C, which has the record and not the file. With `bAhead` false, B fetches nothing ahead either.
 */
async function nobodyHasTheFile(bytes = sample(1000), bAhead = true) {
  const [a, b, c] = [await make(), await make(), await make()];
  const space = await sharedSpace(a, [b, c]);
  for (const n of bAhead ? [c] : [b, c]) await n.setFileLimits({ ahead: 0 });
  const ref = await a.records.addFile(space, bytes);
  await a.records.put(space, 'app.post', { ref });
  const ac = link(a, c);
  await level(a, c, space);
  ac.peerOfA.close();
  const bc = link(b, c);
  await level(b, c, space);
  return { a, b, c, space, ref, bc };
}

/** {@link nobodyHasTheFile}, once B's fetch ahead has asked C: `asked` is how many times. */
async function askedOnce() {
  const scene = await nobodyHasTheFile();
  await advance(2_500);
  return { ...scene, asked: asks(scene.bc.fromA) };
}

describe('files on a fake clock', () => {
  it('fetches a file ahead about 2 s after the record naming it arrives', async () => {
    const [a, b] = [await make(), await make()];
    const space = await sharedSpace(a, [b]);
    const { fromB } = link(a, b);
    await level(a, b, space);
    await advance(3_000);
    const ref = await a.records.addFile(space, sample(3 * CHUNK_BYTES));
    await a.records.put(space, 'app.post', { ref });
    await level(a, b, space);
    const before = asks(fromB);
    await advance(1_800);
    expect(asks(fromB)).toBe(before);
    expect(await holds(b, space, ref.$file)).toBe(false);
    const took = await within(1_000, () => holds(b, space, ref.$file), 'the fetch ahead');
    expect(took).toBeLessThan(1_000);
  });

  it('does not ask everyone again for 10 minutes for a file nobody had, but asks each peer that connects', async () => {
    const { a, b, c, space, ref, bc, asked } = await askedOnce();
    expect(asked).toBeGreaterThan(0);
    expect(await holds(b, space, ref.$file)).toBe(false);
    // Records change again, twice, within 10 minutes: C is not asked again.
    await c.records.put(space, 'app.note', { n: 1 });
    await advance(60_000, 500);
    await c.records.put(space, 'app.note', { n: 2 });
    await advance(5 * 60_000, 1_000);
    expect(asks(bc.fromA)).toBe(asked);
    // A connects: asked at once, whatever the time.
    const ab = link(b, a);
    const took = await within(2_000, () => holds(b, space, ref.$file), 'the new peer asked');
    expect(took).toBeLessThan(1_500);
    expect(asks(ab.fromA)).toBeGreaterThan(0);
  });

  it('asks everyone again once 10 minutes have passed', async () => {
    const { c, space, bc, asked } = await askedOnce();
    await advance(10 * 60_000, 2_000);
    await c.records.put(space, 'app.note', { n: 1 });
    await within(5_000, () => asks(bc.fromA) > asked, 'a new ask');
  });

  it('a read nobody can answer asks again every 15 s, when records change and when a peer connects', async () => {
    const bytes = sample(2 * CHUNK_BYTES + 3);
    const { a, b, c, space, ref, bc } = await nobodyHasTheFile(bytes, false);
    // B's fetch ahead asks C first (for the list only, as ahead is 0), and learns it lacks it.
    await within(10_000, () => asks(bc.fromA) > 0, 'the fetch ahead');
    await advance(1_000);
    const before = asks(bc.fromA);
    let done = false;
    const read = b.records.readFile(space, ref).then((r) => {
      done = true;
      return r;
    });
    read.catch(() => undefined);
    await within(100, () => asks(bc.fromA) > before, 'the first ask');
    const first = asks(bc.fromA);
    await advance(14_000, 100);
    expect(asks(bc.fromA)).toBe(first);
    await within(1_500, () => asks(bc.fromA) > first, 'the 15 s retry');
    const second = asks(bc.fromA);
    await c.records.put(space, 'app.note', { n: 1 });
    await within(1_000, () => asks(bc.fromA) > second, 'the retry on a records change');
    expect(done).toBe(false);
    link(b, a);
    await within(2_000, () => done, 'the read, from the peer that connected');
    expect(same(await read, bytes)).toBe(true);
  });

  it('moves past a peer that stalls, and reads from the next', async () => {
    const [a, b, c] = [await make(), await make(), await make()];
    const space = await sharedSpace(a, [b, c]);
    await b.setFileLimits({ ahead: 0 });
    const bytes = sample(CHUNK_BYTES + 9);
    const ref = await a.records.addFile(space, bytes);
    await a.records.put(space, 'app.post', { ref });
    const ac = link(a, c);
    await level(a, c, space);
    await within(5_000, () => holds(c, space, ref.$file), 'c to fetch ahead');
    // C answers nothing about files; A answers.
    link(b, c, (m) => (m.t === 'fdata' ? null : m));
    await level(b, c, space);
    link(b, a);
    // B's fetch ahead asks C for the list, waits it out, and gets it from A.
    await advance(FILE_REQUEST_TIMEOUT_MS + 5_000, 100);
    let done = false;
    const read = b.records.readFile(space, ref).then((r) => {
      done = true;
      return r;
    });
    read.catch(() => undefined);
    // Peers are asked at once (spec 05 §16.6.6): the read doesn't wait out C's timeout; A is
    // asked for what C sits on once it is late.
    await within(FILE_REQUEST_TIMEOUT_MS - 1_000, () => done, 'the read from A while C stalls');
    expect(same(await read, bytes)).toBe(true);
    void ac;
  });

  it('drops a file nothing names about 2 s after records change, but keeps one added here for 24 h', async () => {
    const [a, b] = [await make(), await make()];
    const space = await sharedSpace(a, [b]);
    link(a, b);
    const kept = await a.records.addFile(space, sample(100, 1));
    const named = await a.records.addFile(space, sample(100, 2));
    const post = await a.records.put(space, 'app.post', { named });
    await level(a, b, space);
    await within(5_000, () => holds(b, space, named.$file), 'b fetching ahead');
    await a.records.delete(space, 'app.post', post.id);
    await level(a, b, space);
    await advance(1_500);
    expect(await holds(b, space, named.$file)).toBe(true);
    await within(1_000, async () => !(await holds(b, space, named.$file)), 'the drop at b');
    // A added it and a record named it: once unnamed, it goes too.
    expect(await holds(a, space, named.$file)).toBe(false);
    // Added here, never named: kept for 24 h, then dropped at the next change.
    await advance(23 * 60 * 60_000, 60 * 60_000);
    await a.records.put(space, 'app.note', { n: 1 });
    await advance(3_000);
    expect(await holds(a, space, kept.$file)).toBe(true);
    await advance(60 * 60_000, 60 * 60_000);
    await a.records.put(space, 'app.note', { n: 2 });
    await within(3_000, async () => !(await holds(a, space, kept.$file)), 'the drop after 24 h');
  });

  it('applies new limits in every open space within a few seconds', async () => {
    const [a, b] = [await make(), await make()];
    const spaces = [await sharedSpace(a, [b]), await sharedSpace(a, [b])];
    link(a, b);
    const refs: FileRef[] = [];
    for (const space of spaces) {
      const ref = await a.records.addFile(space, sample(4 * CHUNK_BYTES, refs.length));
      refs.push(ref);
      await a.records.put(space, 'app.post', { ref });
    }
    await b.setFileLimits({ ahead: 0 });
    for (const space of spaces) await level(a, b, space);
    await advance(3_000);
    expect(await holds(b, spaces[0]!, refs[0]!.$file)).toBe(false);
    // Raising ahead fetches what now fits, in every space.
    await b.setFileLimits({ ahead: Number.POSITIVE_INFINITY });
    await within(
      3_000,
      async () => {
        for (const [i, s] of spaces.entries())
          if (!(await holds(b, s, refs[i]!.$file))) return false;
        return true;
      },
      'fetching what now fits',
    );
    // Lowering keep drops at once.
    await b.setFileLimits({ keep: CHUNK_BYTES });
    await within(
      3_000,
      async () => {
        for (const [i, s] of spaces.entries()) if (await holds(b, s, refs[i]!.$file)) return false;
        return true;
      },
      'the drop past keep',
    );
  });
});
