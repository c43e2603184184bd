// Bad input from peers and sources: a chunk whose hash does not match, a list that does not hash
// to the file id, a chunk moved out of its place, more than was asked, malformed messages. The
// chunk is refused, the source moved past, nothing bad is stored, and the read completes.
import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES, sealFile } from '../../src/files/chunks.js';
import type { FileSource } from '../../src/files/source.js';
import { randomKey } from '../../src/seal.js';
import { decodeMessage, encodeMessage, type Message } from '../../src/sync/messages.js';
import { nodeFixture, sharedSpace } from '../sync-helpers.js';
import { advance, drive, within } from './clock.js';
import { asks, level, link, same, sample } from './files-helpers.js';

const { make } = nodeFixture({ fakeClock: true });
const flip = (bytes: Uint8Array) => {
  const out = bytes.slice();
  out[out.length >> 1]! ^= 1;
  return out;
};

/**
 * Reader R, a bad peer T it meets first and a good peer G after, all holding the record and the
 * file; `tamper` rewrites T's file answers.
 */
async function scene(tamper: (m: Extract<Message, { t: 'fdata' }>) => Message | null) {
  const [g, t, r] = [await make(), await make(), await make()];
  const space = await sharedSpace(g, [t, r]);
  const bytes = sample(6 * CHUNK_BYTES + 77, 3);
  const ref = await g.records.addFile(space, bytes);
  await g.records.put(space, 'app.post', { ref });
  link(g, t);
  await level(g, t, space);
  await within(5_000, async () => (await t.files.whole(space)).includes(ref.$file), 't holding');
  await r.setFileLimits({ ahead: 0 });
  const bad = link(t, r, undefined);
  // Only what T sends R is tampered with.
  const send = bad.fromA.send.bind(bad.fromA);
  bad.fromA.send = (frame: Uint8Array) => {
    const m = decodeMessage(frame);
    if (m.t !== 'fdata') return send(frame);
    const out = tamper(m);
    if (out) send(encodeMessage(out));
  };
  await level(t, r, space);
  const good = link(r, g);
  await level(r, g, space);
  await advance(3_000, 50);
  return { g, t, r, space, bytes, ref, bad, good };
}

async function readsDespite(tamper: (m: Extract<Message, { t: 'fdata' }>) => Message | null) {
  const { g, r, space, bytes, ref, bad, good } = await scene(tamper);
  const read = await drive(r.records.readFile(space, ref));
  expect(same(read, bytes)).toBe(true);
  // T was asked first and moved past; G gave the rest.
  expect(asks(bad.fromB)).toBeGreaterThan(0);
  expect(asks(good.fromA)).toBeGreaterThan(0);
  // What R keeps is G's sealed bytes, chunk for chunk.
  for (let n = 0; n < 7; n++)
    expect(
      same(
        (await r.files.chunk(space, ref.$file, n))!,
        (await g.files.chunk(space, ref.$file, n))!,
      ),
    ).toBe(true);
  expect(
    same((await r.files.list(space, ref.$file))!, (await g.files.list(space, ref.$file))!),
  ).toBe(true);
}

describe('files from a hostile peer', () => {
  it('refuses a chunk whose hash does not match', async () => {
    await readsDespite((m) => ({ ...m, c: m.c.map((c) => (c ? flip(c) : c)) }));
  });

  it('refuses a chunk moved out of its place', async () => {
    await readsDespite((m) => ({ ...m, c: [...m.c].reverse() }));
  });

  it('refuses a chunk list that does not hash to the file id', async () => {
    const other = sealFile(randomKey(), sample(6 * CHUNK_BYTES + 77, 4)).list.bytes;
    await readsDespite((m) => (m.l ? { ...m, l: other } : m));
  });

  it('refuses an answer with more chunks than asked', async () => {
    await readsDespite((m) => ({ ...m, c: [...m.c, new Uint8Array(10)].slice(0, 4) }));
  });

  it('ends a connection that asks for or sends more than 4 chunks at once', () => {
    const frame = (m: Record<string, unknown>) => encodeMessage(m as unknown as Message);
    const id = new Uint8Array(32);
    const s = 'a'.repeat(26);
    expect(() =>
      decodeMessage(frame({ t: 'fwant', s, q: 1, i: id, l: false, n: [0, 1, 2, 3, 4] })),
    ).toThrow(expect.objectContaining({ code: 'protocol' }));
    expect(() =>
      decodeMessage(frame({ t: 'fdata', s, q: 1, c: [null, null, null, null, null] })),
    ).toThrow(expect.objectContaining({ code: 'protocol' }));
    expect(() => decodeMessage(frame({ t: 'fwant', s, q: 1, i: id, l: 1, n: [] }))).toThrow(
      expect.objectContaining({ code: 'protocol' }),
    );
    expect(() =>
      decodeMessage(frame({ t: 'fdata', s, q: 1, c: [new Uint8Array(CHUNK_BYTES + 41)] })),
    ).toThrow(expect.objectContaining({ code: 'protocol' }));
    expect(decodeMessage(frame({ t: 'fdata', s, q: 1, c: [null, new Uint8Array(3)] }))).toEqual({
      t: 'fdata',
      s,
      q: 1,
      c: [null, new Uint8Array(3)],
    });
  });

  it('moves past a source that throws or lies, and reads from the next', async () => {
    const [a, b] = [await make(), await make()];
    const space = await sharedSpace(a, [b]);
    const bytes = sample(2 * CHUNK_BYTES + 1, 5);
    const ref = await a.records.addFile(space, bytes);
    await a.records.put(space, 'app.post', { ref });
    const l = link(a, b);
    await level(a, b, space);
    l.peerOfA.close();
    const list = (await a.files.list(space, ref.$file))!;
    const chunks = await Promise.all([0, 1, 2].map((n) => a.files.chunk(space, ref.$file, n)));
    const asked: string[] = [];
    const note = (name: string) => {
      if (asked.at(-1) !== name) asked.push(name);
    };
    const sources: FileSource[] = [
      {
        name: 'throws',
        list: async () => {
          note('throws');
          throw new Error('down');
        },
        chunk: async () => null,
      },
      {
        name: 'lies',
        list: async () => list,
        chunk: async (_i, n) => {
          note('lies');
          return flip(chunks[n]!);
        },
      },
      {
        name: 'wrong count',
        list: async () => list,
        chunk: async () => null,
        chunks: async () => {
          note('wrong count');
          return [chunks[0]!];
        },
      },
      {
        name: 'good',
        list: async () => list,
        chunk: async (_i, n) => {
          note('good');
          return chunks[n] ?? null;
        },
      },
    ];
    b.files.addSources(() => sources);
    expect(same(await drive(b.records.readFile(space, ref)), bytes)).toBe(true);
    expect(asked).toEqual(['throws', 'lies', 'wrong count', 'good']);
  });
});
