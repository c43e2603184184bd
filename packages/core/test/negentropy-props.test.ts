// Properties: any two sets reconcile to exactly their differences, under any frame limits, and
// no input makes reconcile do anything but answer or throw MincaError('malformed').

import { fc, test } from '@fast-check/vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../src/bytes.js';
import { isMincaError } from '../src/errors.js';
import { diffIds } from '../src/negentropy/ids.js';
import { Negentropy, NegentropyStorage } from '../src/negentropy/index.js';
import { type Item, itemsOf, limit, spec } from './negentropy-items.js';

function storageOf(...lists: Item[][]): NegentropyStorage {
  const s = new NegentropyStorage();
  for (const list of lists) for (const { ts, id } of list) s.insert(ts, id);
  s.seal();
  return s;
}

describe('negentropy properties', () => {
  test.prop([spec], { numRuns: 60 })('reconciles to exactly the differences', (s) => {
    const { common, client, server } = itemsOf(s);
    const ne = new Negentropy(storageOf(common, client), s.clientLimit);
    const serverStorage = storageOf(common, server);
    const have = new Set<string>();
    const need = new Set<string>();
    let msg: Uint8Array | undefined = ne.initiate();
    let rounds = 0;
    while (msg) {
      expect(++rounds).toBeLessThan(100);
      const reply = new Negentropy(serverStorage, s.serverLimit).reconcile(msg).reply!;
      if (s.serverLimit) expect(reply.length).toBeLessThanOrEqual(s.serverLimit);
      const res = ne.reconcile(reply);
      for (const id of res.have) have.add(toHex(id));
      for (const id of res.need) need.add(toHex(id));
      msg = res.reply;
      if (msg && s.clientLimit) expect(msg.length).toBeLessThanOrEqual(s.clientLimit);
    }
    expect([...have].sort()).toEqual(client.map((i) => toHex(i.id)).sort());
    expect([...need].sort()).toEqual(server.map((i) => toHex(i.id)).sort());
  });

  test.prop(
    [
      fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 200 }),
      fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 200 }),
    ],
    { numRuns: 200 },
  )(
    'diffIds is set difference, however the lists come; have in the span’s order',
    (mine, theirs) => {
      // Small id alphabet, so lists overlap and repeat; both the double loop and the sort path run.
      const idOf = (k: number) => sha256(Uint8Array.of(k));
      const local = new Uint8Array(32 * mine.length);
      mine.forEach((k, i) => {
        local.set(idOf(k), i * 32);
      });
      const msg = new Uint8Array(7 + 32 * theirs.length);
      theirs.forEach((k, i) => {
        msg.set(idOf(k), 7 + i * 32);
      });
      const have: Uint8Array[] = [];
      const need: Uint8Array[] = [];
      const from = Math.min(3, mine.length);
      diffIds(local, from, mine.length, msg, 7, theirs.length, have, need);
      const span = mine.slice(from);
      const expectHave = span.filter((k) => !theirs.includes(k)).map((k) => toHex(idOf(k)));
      const expectNeed = theirs.filter((k) => !span.includes(k)).map((k) => toHex(idOf(k)));
      expect(have.map(toHex)).toEqual(expectHave);
      expect(need.map(toHex).sort()).toEqual(expectNeed.sort());
    },
  );

  it('diffIds against an empty span or an empty list, however long the other', () => {
    const ids = new Uint8Array(32 * 5000);
    for (let i = 0; i < 5000; i++) ids.set(sha256(Uint8Array.of(i & 0xff, i >> 8)), i * 32);
    for (const [from, to, count] of [
      [0, 0, 5000],
      [0, 5000, 0],
      [4999, 5000, 5000],
    ] as const) {
      const have: Uint8Array[] = [];
      const need: Uint8Array[] = [];
      diffIds(ids, from, to, ids, 0, count, have, need);
      expect(have.map(toHex)).toEqual(
        count === 0
          ? Array.from({ length: to - from }, (_, k) =>
              toHex(ids.subarray((from + k) * 32, (from + k + 1) * 32)),
            )
          : [],
      );
      expect(need.length).toBe(count - (to - from) * (count === 0 ? 0 : 1));
    }
  });

  it('diffIds gives a long span’s ids the peer lacks in the span’s order, not by id', () => {
    // The set's order is the order written: a batch signature's versions sent together.
    const ids = new Uint8Array(32 * 5000);
    for (let i = 0; i < 5000; i++) ids.set(sha256(Uint8Array.of(i & 0xff, i >> 8)), i * 32);
    const have: Uint8Array[] = [];
    const need: Uint8Array[] = [];
    // The peer has the span's first two: 5,000 × 2 pairs, past the double loop.
    diffIds(ids, 0, 5000, ids, 0, 2, have, need);
    expect(need).toEqual([]);
    expect(have.map(toHex)).toEqual(
      Array.from({ length: 4998 }, (_, k) => toHex(ids.subarray((k + 2) * 32, (k + 3) * 32))),
    );
  });
});

// A sealed store of 300 items with clustered timestamps, for the garbage tests.
const garbageStore = storageOf(
  itemsOf({
    seed: 7,
    common: 300,
    clientOnly: 0,
    serverOnly: 0,
    base: 1000n,
    spread: 50,
    sharedPrefix: 0,
    clientLimit: 0,
    serverLimit: 0,
  }).common,
);
const realMessage = new Negentropy(garbageStore).initiate();

/** Runs `msg` through both roles: an answer or MincaError('malformed'), nothing else. */
function survives(msg: Uint8Array, frameLimit: number): void {
  for (const initiator of [false, true]) {
    const ne = new Negentropy(garbageStore, frameLimit);
    if (initiator) ne.initiate();
    try {
      const res = ne.reconcile(msg);
      // Output stays proportional to the input and the store, never unbounded.
      if (res.reply) expect(res.reply.length).toBeLessThanOrEqual(64 * msg.length + 32 * 300 + 64);
      if (res.reply && frameLimit) expect(res.reply.length).toBeLessThanOrEqual(frameLimit);
    } catch (e) {
      if (!isMincaError(e, 'malformed')) throw e;
    }
  }
}

describe('negentropy on hostile input', () => {
  test.prop([fc.uint8Array({ maxLength: 400 }), limit], { numRuns: 300 })(
    'random bytes',
    (bytes, frameLimit) => {
      survives(bytes, frameLimit);
      survives(Uint8Array.of(0x61, ...bytes), frameLimit);
    },
  );

  test.prop(
    [
      fc.array(
        fc.record({
          at: fc.nat(),
          op: fc.constantFrom('flip', 'cut', 'insert', 'delete'),
          byte: fc.integer({ min: 0, max: 255 }),
        }),
        { minLength: 1, maxLength: 8 },
      ),
      limit,
    ],
    { numRuns: 300 },
  )('mutations of a real message', (edits, frameLimit) => {
    let msg = Array.from(realMessage);
    for (const { at, op, byte } of edits) {
      const i = 1 + (at % Math.max(1, msg.length - 1));
      if (op === 'flip') msg[i] = byte;
      else if (op === 'cut') msg = msg.slice(0, i);
      else if (op === 'insert') msg.splice(i, 0, byte);
      else msg.splice(i, 1);
    }
    survives(Uint8Array.from(msg), frameLimit);
  });

  const server = () => new Negentropy(garbageStore);
  const client = () => {
    const ne = new Negentropy(garbageStore);
    ne.initiate();
    return ne;
  };
  const rejects = (ne: Negentropy, hex: string, reason: RegExp) => {
    let caught: unknown;
    try {
      ne.reconcile(fromHex(hex.replaceAll(' ', '')));
    } catch (e) {
      caught = e;
    }
    expect(isMincaError(caught, 'malformed'), hex).toBe(true);
    expect((caught as Error).message, hex).toMatch(reason);
  };

  it('refuses each kind of malformed message', () => {
    const id = 'cd'.repeat(32);
    const cases: Array<[string, RegExp]> = [
      ['', /empty/],
      ['50', /not a protocol version/],
      ['70', /not a protocol version/],
      ['61 81', /varint runs past the end/],
      ['61 8000', /not minimal/],
      [`61 ${'ff'.repeat(10)}7f`, /exceeds 64 bits/],
      ['61 00 21', /prefix length over 32/],
      ['61 00 04abcd', /prefix runs past the end/],
      ['61 00 00 03', /mode over 2/],
      ['61 00 00 8000', /not minimal/],
      ['61 00 00', /varint runs past the end/],
      ['61 00 00 01 abcd', /fingerprint runs past the end/],
      [`61 00 00 02 ffffffff0f ${id}`, /IdList count over 1/],
      [`61 00 00 02 02 ${id}`, /IdList count over 1/],
      [`61 00 00 02 01 ${id.slice(2)}`, /IdList runs past the end/],
      // Same timestamp, prefix abcd then ab: the second bound is below the first.
      ['61 01 02abcd 00 01 01ab 00', /backwards/],
    ];
    for (const ne of [server(), client()])
      for (const [hex, reason] of cases) rejects(ne, hex, reason);
    rejects(client(), '62', /unsupported protocol version/); // a client does not downgrade
  });

  it('answers another version in 0x60..0x6f with 61, as a responder', () => {
    for (const v of ['60', '62', '6f', '62ffff'])
      expect(toHex(server().reconcile(fromHex(v)).reply!)).toBe('61');
  });

  it('accepts equal consecutive bounds and bounds after INF (empty ranges)', () => {
    expect(toHex(server().reconcile(fromHex('610500 00 0100 00'.replaceAll(' ', ''))).reply!)).toBe(
      '61',
    );
    // (INF, Skip) then (INF, IdList 0): the skip is flushed before the server's IdList.
    const res = server().reconcile(fromHex('61000000 0000 0200'.replaceAll(' ', '')));
    expect(toHex(res.reply!)).toBe('6100000000000200');
  });
});
