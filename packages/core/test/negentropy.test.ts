// Replays the reference transcripts in vectors/negentropy.json (hoytech/negentropy 6edb041):
// both roles together, each role alone against the recording, and the unit sections.
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../src/bytes.js';
import { isMincaError } from '../src/errors.js';
import { Negentropy, NegentropyStorage } from '../src/negentropy/index.js';
import { Reader } from '../src/negentropy/reader.js';
import { rangeFingerprint, sealedItems } from '../src/negentropy/storage.js';
import { Writer } from '../src/negentropy/writer.js';
import vectors from './vectors/negentropy.json' with { type: 'json' };

type Item = [number | string, string];
interface Case {
  name: string;
  clientFrameSizeLimit: number;
  serverFrameSizeLimit: number;
  items: { common: Item[]; clientOnly: Item[]; serverOnly: Item[] };
  messages: string[];
  rounds: Array<{ have: number[]; need: number[] }>;
  have: string[];
  need: string[];
}
const cases = vectors.cases as unknown as Case[];

function storageOf(...lists: Item[][]): NegentropyStorage {
  const s = new NegentropyStorage();
  for (const list of lists) for (const [ts, id] of list) s.insert(BigInt(ts), fromHex(id));
  s.seal();
  return s;
}

const sorted = (ids: Uint8Array[]) => ids.map(toHex).sort();
const unique = (ids: string[]) => [...new Set(ids)].sort();

describe('negentropy vectors: sessions', () => {
  it('covers every recorded case', () => {
    expect(cases.length).toBe(27);
  });

  for (const c of cases) {
    const client = () => storageOf(c.items.common, c.items.clientOnly);
    const server = () => storageOf(c.items.common, c.items.serverOnly);

    it(`${c.name}: both roles reproduce the transcript`, () => {
      const ne = new Negentropy(client(), c.clientFrameSizeLimit);
      const serverStorage = server();
      let msg: Uint8Array | undefined = ne.initiate();
      const have: string[] = [];
      const need: string[] = [];
      let i = 0;
      while (msg) {
        expect(toHex(msg), `message ${i}`).toBe(c.messages[i]);
        // A fresh responder per message: the responder keeps no state.
        const reply = new Negentropy(serverStorage, c.serverFrameSizeLimit).reconcile(msg);
        expect(reply.have).toEqual([]);
        expect(reply.need).toEqual([]);
        expect(toHex(reply.reply!), `message ${i + 1}`).toBe(c.messages[i + 1]);
        const res = ne.reconcile(reply.reply!);
        const round = c.rounds[i / 2]!;
        expect(sorted(res.have)).toEqual(round.have.map((k) => c.have[k]!).sort());
        expect(sorted(res.need)).toEqual(round.need.map((k) => c.need[k]!).sort());
        have.push(...res.have.map(toHex));
        need.push(...res.need.map(toHex));
        msg = res.reply;
        i += 2;
      }
      expect(i).toBe(c.messages.length);
      expect(unique(have)).toEqual(c.have);
      expect(unique(need)).toEqual(c.need);
      expect(c.have).toEqual(unique(c.items.clientOnly.map(([, id]) => id)));
      expect(c.need).toEqual(unique(c.items.serverOnly.map(([, id]) => id)));
    });

    it(`${c.name}: the client alone against the recorded server`, () => {
      const ne = new Negentropy(client(), c.clientFrameSizeLimit);
      expect(toHex(ne.initiate())).toBe(c.messages[0]);
      for (let i = 1; i < c.messages.length; i += 2) {
        const res = ne.reconcile(fromHex(c.messages[i]!));
        const round = c.rounds[(i - 1) / 2]!;
        expect(sorted(res.have)).toEqual(round.have.map((k) => c.have[k]!).sort());
        expect(sorted(res.need)).toEqual(round.need.map((k) => c.need[k]!).sort());
        if (i + 1 < c.messages.length) expect(toHex(res.reply!)).toBe(c.messages[i + 1]);
        else expect(res.reply).toBeUndefined();
      }
    });

    it(`${c.name}: the server alone against the recorded client`, () => {
      const s = server();
      // One responder kept for the whole session answers like a fresh one per message.
      const kept = new Negentropy(s, c.serverFrameSizeLimit);
      for (let i = 0; i < c.messages.length; i += 2) {
        const res = new Negentropy(s, c.serverFrameSizeLimit).reconcile(fromHex(c.messages[i]!));
        expect(toHex(res.reply!)).toBe(c.messages[i + 1]);
        expect(toHex(kept.reconcile(fromHex(c.messages[i]!)).reply!)).toBe(c.messages[i + 1]);
      }
    });
  }
});

describe('negentropy vectors: units', () => {
  it('fingerprints', () => {
    expect(vectors.fingerprints.length).toBe(11);
    for (const f of vectors.fingerprints) {
      const s = new NegentropyStorage();
      for (const [i, id] of f.ids.entries()) s.insert(i, fromHex(id));
      s.seal();
      const items = sealedItems(s);
      expect(toHex(rangeFingerprint(items, 0, items.n)), f.name).toBe(f.fingerprint);
    }
  });

  it('varints', () => {
    expect(vectors.varints.length).toBe(15);
    for (const v of vectors.varints) {
      const value = BigInt(v.value);
      const w = new Writer();
      w.varint64(Number(value >> 32n), Number(value & 0xffff_ffffn));
      expect(toHex(w.bytes()), v.value).toBe(v.hex);
      const r = new Reader(fromHex(v.hex));
      r.varint64();
      expect((BigInt(r.hi) << 32n) | BigInt(r.lo)).toBe(value);
      expect(r.remaining).toBe(0);
      if (value < 2n ** 53n) {
        const w2 = new Writer();
        w2.varint(Number(value));
        expect(toHex(w2.bytes())).toBe(v.hex);
      }
    }
  });

  it('single server responses', () => {
    expect(vectors.serverResponses.length).toBe(9);
    for (const v of vectors.serverResponses) {
      const s = storageOf(v.serverItems as Item[]);
      const ne = new Negentropy(s, v.serverFrameSizeLimit);
      if (v.error) {
        let caught: unknown;
        try {
          ne.reconcile(fromHex(v.request));
        } catch (e) {
          caught = e;
        }
        expect(isMincaError(caught, 'malformed'), v.name).toBe(true);
      } else {
        expect(toHex(ne.reconcile(fromHex(v.request)).reply!), v.name).toBe(v.response);
      }
    }
  });
});
