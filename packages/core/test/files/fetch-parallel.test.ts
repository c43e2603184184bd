// fetchFile over several sources at once (spec 05 §16.6.6), with sources made here so each
// answer, delay and lie is chosen: peers asked together for different chunks, at most 4 a
// request and 2 requests out each; a liar dropped with nothing of its answer stored; a
// staller's chunks asked of others once late; mirrors only after peers, one at a time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AbortSignalLike } from '../../src/files/abort.js';
import { CHUNK_BYTES, sealFile } from '../../src/files/chunks.js';
import { fetchFile } from '../../src/files/fetch.js';
import { FileStore } from '../../src/files/file-store.js';
import type { FileSource } from '../../src/files/source.js';
import { randomKey } from '../../src/seal.js';
import { Store } from '../../src/store.js';
import { fakeStores } from '../fake-adapter.js';
import { same, sample } from './files-helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

const CHUNKS = 40;
const file = sealFile(randomKey(), sample(CHUNKS * CHUNK_BYTES - 100, 7));
const id = file.list.id;

const openFiles = async () => FileStore.open(await Store.open(await fakeStores().open('s')));

interface Behaviour {
  kind?: 'peer' | 'mirror';
  /** Ms before each answer. */
  delay?: number;
  /** Chunks it doesn't have. */
  lacks?: (n: number) => boolean;
  /** Chunks it sends wrong. */
  lies?: (n: number) => boolean;
  /** Never answers chunk asks (until the fetch lets go of them). */
  stalls?: boolean;
  /** Has no list. */
  noList?: boolean;
  /** Ms before its list answer. */
  listDelay?: number;
}

/** A source with the file, answering as told, and what it was asked. */
function source(name: string, how: Behaviour = {}) {
  const asked: number[][] = [];
  const seen = { out: 0, maxOut: 0, lists: 0, letGo: 0 };
  const wait = <T>(value: () => T, signal?: AbortSignalLike) =>
    new Promise<T>((resolve, reject) => {
      seen.out++;
      seen.maxOut = Math.max(seen.maxOut, seen.out);
      const done = () => seen.out--;
      signal?.addEventListener('abort', () => {
        seen.letGo++;
        done();
        reject(new Error('let go'));
      });
      if (how.stalls) return;
      setTimeout(() => {
        done();
        resolve(value());
      }, how.delay ?? 1);
    });
  const s: FileSource & { asked: number[][]; seen: typeof seen } = {
    name,
    kind: how.kind ?? 'peer',
    asked,
    seen,
    async list() {
      seen.lists++;
      if (how.listDelay) await new Promise((r) => setTimeout(r, how.listDelay));
      return how.noList ? null : file.list.bytes;
    },
    async chunk(_id, n, signal) {
      return (await s.chunks!(_id, [n], signal))[0] ?? null;
    },
    chunks(_id, ns, signal) {
      asked.push([...ns]);
      return wait(
        () =>
          ns.map((n) => {
            if (how.lacks?.(n)) return null;
            const sealed = file.chunks[n]!;
            if (!how.lies?.(n)) return sealed;
            const bad = sealed.slice();
            bad[9]! ^= 1;
            return bad;
          }),
        signal,
      );
    },
  };
  return s;
}

const chunksAsked = (s: { asked: number[][] }) => s.asked.flat();

async function expectWhole(files: FileStore) {
  expect(files.isWhole(id)).toBe(true);
  for (let n = 0; n < CHUNKS; n++)
    expect(same((await files.chunk(id, n))!, file.chunks[n]!), `chunk ${n}`).toBe(true);
}

describe('fetchFile from several sources', () => {
  it('asks every peer at once, each for other chunks, at most 4 a request and 2 requests out', async () => {
    const files = await openFiles();
    const peers = [source('p1', { delay: 3 }), source('p2', { delay: 5 }), source('p3')];
    const told: string[] = [];
    const stored: number[] = [];
    const result = await fetchFile(files, id, peers, {
      onSource: (s) => told.push(s.name),
      onChunk: (n) => stored.push(n),
    });
    expect(result).toBe('whole');
    await expectWhole(files);
    expect(told).toEqual(['p1', 'p2', 'p3']);
    expect(stored.sort((a, b) => a - b)).toEqual([...Array(CHUNKS).keys()]);
    for (const p of peers) {
      expect(p.seen.lists).toBe(1);
      expect(chunksAsked(p).length).toBeGreaterThan(0);
      expect(Math.max(...p.asked.map((a) => a.length))).toBeLessThanOrEqual(4);
      expect(p.seen.maxOut).toBeLessThanOrEqual(2);
    }
    // Nobody was late, so no chunk was asked twice.
    expect(peers.flatMap(chunksAsked).sort((a, b) => a - b)).toEqual([...Array(CHUNKS).keys()]);
  });

  it('drops a peer that sends a wrong chunk, stores nothing of that answer, and asks the others for it', async () => {
    const files = await openFiles();
    // The liar answers first and gets every fourth chunk wrong.
    const liar = source('liar', { delay: 1, lies: (n) => n % 4 === 1 });
    const good = [source('g1', { delay: 4 }), source('g2', { delay: 4 })];
    const refused: string[] = [];
    const result = await fetchFile(files, id, [liar, ...good], {
      onRefused: (s, why) => refused.push(`${s.name}: ${why}`),
    });
    expect(result).toBe('whole');
    await expectWhole(files);
    expect(refused).toEqual([expect.stringMatching(/^liar: chunk \d+ does not match/)]);
    // Its first answer held chunks 0–3; 0, 2 and 3 checked out but were not stored from it
    // (it was dropped before or as that answer was checked): they were asked of the others.
    expect(liar.asked[0]).toEqual([0, 1, 2, 3]);
    const fromOthers = new Set(good.flatMap(chunksAsked));
    for (const n of [0, 1, 2, 3]) expect(fromOthers.has(n), `chunk ${n}`).toBe(true);
    // Dropped at its first answer: at most the request ahead, and one more sent as it came in.
    expect(liar.asked.length).toBeLessThanOrEqual(3);
  });

  it('asks others for what a stalled peer sits on once it is late, without waiting it out', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const files = await openFiles();
    const staller = source('staller', { stalls: true });
    const good = source('good', { delay: 20 });
    let result: string | undefined;
    void fetchFile(files, id, [staller, good]).then((r) => {
      result = r;
    });
    // Hashing may run off the main thread: real turns of the event loop between steps.
    const end = performance.now() + 20_000;
    while (result === undefined && performance.now() < end) {
      await vi.advanceTimersByTimeAsync(10);
      await new Promise((r) => setImmediate(r));
    }
    expect(result).toBe('whole');
    await expectWhole(files);
    // The staller never answered; its asks were let go of when the fetch ended.
    expect(staller.asked.length).toBeGreaterThan(0);
    expect(staller.seen.letGo).toBe(staller.asked.length);
    expect(staller.seen.out).toBe(0);
    const fromGood = new Set(chunksAsked(good));
    for (const n of chunksAsked(staller)) expect(fromGood.has(n), `chunk ${n}`).toBe(true);
  });

  it('asks a peer whose list answer is slow for chunks once another list is in, its list among its 2 out', async () => {
    const files = await openFiles();
    const slow = source('slow', { listDelay: 2_000 });
    // Without the file, and slow to say so: what it is asked meanwhile goes to the others.
    const without = source('without', { listDelay: 2_000, noList: true, lacks: () => true });
    const fast = source('fast', { delay: 3 });
    expect(await fetchFile(files, id, [slow, without, fast])).toBe('whole');
    await expectWhole(files);
    expect(chunksAsked(slow).length).toBeGreaterThan(0);
    expect(chunksAsked(without).length).toBeGreaterThan(0);
    // Their list requests still out, each had one request of chunks out at a time.
    expect(slow.seen.maxOut).toBe(1);
    expect(without.seen.maxOut).toBe(1);
    expect(without.asked).toHaveLength(1);
  });

  it('asks a peer that lacks a chunk no more; the others give the rest', async () => {
    const files = await openFiles();
    const partial = source('partial', { delay: 1, lacks: (n) => n >= 8 });
    const full = source('full', { delay: 3 });
    expect(await fetchFile(files, id, [partial, full])).toBe('whole');
    await expectWhole(files);
    const lackedAt = partial.asked.findIndex((a) => a.some((n) => n >= 8));
    expect(lackedAt).toBeGreaterThanOrEqual(0);
    // After the answer with a gap, at most the one request already out or sent as it came.
    expect(partial.asked.length - lackedAt).toBeLessThanOrEqual(3);
  });

  it('asks mirrors only after the peers, one at a time, and only for what is missing', async () => {
    const files = await openFiles();
    const peer = source('peer', { lacks: (n) => n >= 10 });
    const m1 = source('m1', { kind: 'mirror', lacks: (n) => n >= 20 });
    const m2 = source('m2', { kind: 'mirror' });
    const order: string[] = [];
    const result = await fetchFile(files, id, [m1, peer, m2], {
      onSource: (s) => order.push(s.name),
    });
    expect(result).toBe('whole');
    await expectWhole(files);
    expect(order).toEqual(['peer', 'm1', 'm2']);
    expect(Math.min(...chunksAsked(m1))).toBeGreaterThanOrEqual(10);
    expect(Math.min(...chunksAsked(m2))).toBeGreaterThanOrEqual(20);
    // The list was held by then: mirrors were not asked for it.
    expect(m1.seen.lists + m2.seen.lists).toBe(0);
  });

  it('takes the list from a peer that has it, drops one whose list is wrong, and stops when told', async () => {
    const files = await openFiles();
    const none = source('none', { noList: true });
    const wrong = source('wrong');
    const other = sealFile(randomKey(), sample(100, 1)).list.bytes;
    wrong.list = async () => {
      wrong.seen.lists++;
      return other;
    };
    const good = source('good');
    const refused: string[] = [];
    const stopped = await fetchFile(files, id, [none, wrong, good], {
      proceed: () => false,
      onRefused: (s) => refused.push(s.name),
    });
    expect(stopped).toBe('stopped');
    expect(refused).toEqual(['wrong']);
    expect(files.get(id)?.list?.bytes).toEqual(file.list.bytes);
    expect([none, wrong, good].flatMap(chunksAsked)).toEqual([]);
    // The list is held now: nobody is asked for it again.
    expect(await fetchFile(files, id, [none, wrong, good])).toBe('whole');
    await expectWhole(files);
    expect([none, wrong, good].map((s) => s.seen.lists)).toEqual([1, 1, 1]);
  });

  it('rejects aborted when its signal aborts, and lets go of every ask', async () => {
    const files = await openFiles();
    const peers = [source('a', { stalls: true }), source('b', { stalls: true })];
    const controller = new AbortController();
    const fetching = fetchFile(files, id, peers, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await expect(fetching).rejects.toMatchObject({ code: 'aborted' });
    for (const p of peers) expect(p.seen.out).toBe(0);
  });

  it('ends the fetch with what onChunk throws', async () => {
    const files = await openFiles();
    const fetching = fetchFile(files, id, [source('a'), source('b')], {
      onChunk: (n) => {
        if (n === 5) throw new Error('no good');
      },
    });
    await expect(fetching).rejects.toThrow('no good');
  });
});
