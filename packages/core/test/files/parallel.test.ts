// Several peers at once, over real nodes and memory transports: a reader asks every connected
// peer that has the file, each for other chunks, each peer answering at most 4 chunks a request
// with at most 2 requests out; a hostile peer that serves wrong chunks is dropped for the file,
// the file still arrives whole from the others, and nothing wrong is stored.
import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES } from '../../src/files/chunks.js';
import type { MincaNode } from '../../src/node.js';
import { decodeMessage, encodeMessage, type Message } from '../../src/sync/messages.js';
import type { Transport } from '../../src/sync/transport.js';
import { nodeFixture, sharedSpace } from '../sync-helpers.js';
import { drive, within } from './clock.js';
import { link, same, sample } from './files-helpers.js';

const { make } = nodeFixture({ fakeClock: true });

const fingerprint = async (n: MincaNode, s: string) => (await n.spaces.status(s)).fingerprint;
const level = (a: MincaNode, b: MincaNode, s: string) =>
  within(20_000, async () => (await fingerprint(a, s)) === (await fingerprint(b, s)), 'sync');

/** What the reader's end of one link asked and was answered, watched as it happens. */
interface Asks {
  /** Chunk numbers asked, per request. */
  requests: number[][];
  /** Most requests out at once. */
  maxOut: number;
  /** Chunks the peer sent (non-null). */
  served: number;
}

/** Watches the reader's end `t` of a link: requests it sends, answers it takes in. */
function watchAsks(t: Transport): Asks {
  const asks: Asks = { requests: [], maxOut: 0, served: 0 };
  let out = 0;
  const send = t.send.bind(t);
  t.send = (frame: Uint8Array) => {
    const m = decodeMessage(frame);
    if (m.t === 'fwant') {
      out++;
      asks.maxOut = Math.max(asks.maxOut, out);
      if (m.n.length > 0) asks.requests.push([...m.n]);
    }
    send(frame);
  };
  const take = t.onMessage!;
  t.onMessage = (frame: Uint8Array) => {
    const m = decodeMessage(frame);
    if (m.t === 'fdata') {
      out--;
      asks.served += m.c.filter((c) => c !== null).length;
    }
    take(frame);
  };
  return asks;
}

/** Rewrites (or, for null, drops) the file answers a peer sends on its end `t` of a link. */
function tamper(t: Transport, edit: (m: Extract<Message, { t: 'fdata' }>) => Message | null) {
  const send = t.send.bind(t);
  t.send = (frame: Uint8Array) => {
    const m = decodeMessage(frame);
    if (m.t !== 'fdata') return send(frame);
    const out = edit(m);
    if (out) send(encodeMessage(out));
  };
}

const CHUNKS = 24;

/**
 * Owner A adds a file, three peers fetch and keep it whole, A goes; reader R (fetching nothing
 * ahead) then links to each peer.
 */
async function scene() {
  const a = await make();
  const peers = [
    await make({ fetchFiles: 'all' }),
    await make({ fetchFiles: 'all' }),
    await make({ fetchFiles: 'all' }),
  ];
  const r = await make();
  const space = await sharedSpace(a, [...peers, r]);
  await r.setFileLimits({ ahead: 0 });
  const bytes = sample(CHUNKS * CHUNK_BYTES - 1234, 9);
  const ref = await drive(a.records.addFile(space, bytes));
  await a.records.put(space, 'app.post', { ref });
  const fromA = peers.map((p) => link(a, p));
  for (const p of peers) {
    await level(a, p, space);
    await within(
      60_000,
      async () => (await p.files.whole(space)).includes(ref.$file),
      'a peer holding the file',
      50,
    );
  }
  for (const l of fromA) l.peerOfA.close();
  const links = peers.map((p) => link(p, r));
  for (const p of peers) await level(p, r, space);
  return { a, peers, r, space, bytes, ref, links };
}

describe('a file from several peers at once', () => {
  it('asks every peer that has it, each for other chunks, 4 a request, 2 requests out', async () => {
    const { peers, r, space, bytes, ref, links } = await scene();
    const watched = links.map((l) => watchAsks(l.fromB));
    expect(same(await drive(r.records.readFile(space, ref), 60_000, 20), bytes)).toBe(true);
    for (const w of watched) {
      expect(w.requests.length).toBeGreaterThan(0);
      expect(w.served).toBeGreaterThan(0);
      expect(Math.max(...w.requests.map((q) => q.length))).toBeLessThanOrEqual(4);
      expect(w.maxOut).toBeLessThanOrEqual(2);
    }
    // Between them they were asked for every chunk, and each chunk of one only.
    const asked = watched.flatMap((w) => w.requests.flat()).sort((x, y) => x - y);
    expect(asked).toEqual([...Array(CHUNKS).keys()]);
    for (let n = 0; n < CHUNKS; n++)
      expect(
        same(
          (await r.files.chunk(space, ref.$file, n))!,
          (await peers[0]!.files.chunk(space, ref.$file, n))!,
        ),
      ).toBe(true);
  });

  it('asks a peer whose list answer is slow for chunks once another peer gave the list', async () => {
    const { r, space, bytes, ref, links } = await scene();
    // The third peer's answer with the list never comes; its answers with chunks do.
    tamper(links[2]!.fromA, (m) => (m.l ? null : m));
    const watched = links.map((l) => watchAsks(l.fromB));
    expect(same(await drive(r.records.readFile(space, ref), 60_000, 20), bytes)).toBe(true);
    const slow = watched[2]!;
    expect(slow.served).toBeGreaterThan(0);
    // Its list request counts among its 2 out.
    expect(slow.maxOut).toBeLessThanOrEqual(2);
  });

  it('drops a peer that serves wrong chunks; the file arrives whole from the others; nothing wrong is stored', async () => {
    const { peers, r, space, bytes, ref, links } = await scene();
    // The second peer flips a byte in every chunk it sends R.
    tamper(links[1]!.fromA, (m) => ({
      ...m,
      c: m.c.map((c) => {
        if (!c) return c;
        const bad = c.slice();
        bad[c.length >> 1]! ^= 1;
        return bad;
      }),
    }));
    const watched = links.map((l) => watchAsks(l.fromB));
    expect(same(await drive(r.records.readFile(space, ref), 60_000, 20), bytes)).toBe(true);
    // The liar was asked, dropped at its first answer (what was out by then, and one more
    // request sent as it came in, at most), and served nothing that was kept.
    const liar = watched[1]!;
    expect(liar.requests.length).toBeGreaterThan(0);
    expect(liar.requests.length).toBeLessThanOrEqual(3);
    // The others gave everything, the liar's chunks included.
    const fromOthers = new Set([...watched[0]!.requests.flat(), ...watched[2]!.requests.flat()]);
    for (const n of liar.requests.flat()) expect(fromOthers.has(n), `chunk ${n}`).toBe(true);
    // What R holds is the true sealed chunks, chunk for chunk, and the true list.
    for (let n = 0; n < CHUNKS; n++)
      expect(
        same(
          (await r.files.chunk(space, ref.$file, n))!,
          (await peers[0]!.files.chunk(space, ref.$file, n))!,
        ),
        `chunk ${n}`,
      ).toBe(true);
    expect(
      same(
        (await r.files.list(space, ref.$file))!,
        (await peers[0]!.files.list(space, ref.$file))!,
      ),
    ).toBe(true);
    // Dropped for that file only: the liar still syncs records with R.
    await r.records.put(space, 'app.note', { n: 1 });
    await level(r, peers[1]!, space);
  });
});
