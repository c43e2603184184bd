import { describe, expect, it } from 'vitest';
import { createMemoryTransportPair } from '../src/sync/memory-transport.js';
import { createMessagePortTransport } from '../src/sync/message-port-transport.js';
import type { Transport } from '../src/sync/transport.js';

const collect = (t: Transport) => {
  const got: number[] = [];
  const closed: Array<string | undefined> = [];
  t.onMessage = (m) => got.push(m[0]!);
  t.onClose = (r) => closed.push(r);
  return { got, closed };
};
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe.each([
  ['memory', () => createMemoryTransportPair()],
  ['memory, random delays', () => createMemoryTransportPair({ delay: () => Math.random() * 10 })],
  [
    'MessagePort',
    () => {
      const { port1, port2 } = new MessageChannel();
      return [
        createMessagePortTransport(port1 as never),
        createMessagePortTransport(port2 as never),
      ] as const;
    },
  ],
])('%s transport', (_name, make) => {
  it('delivers in order, copies, and closes both ends', async () => {
    const [a, b] = make();
    const atB = collect(b);
    const atA = collect(a);
    const sent = new Uint8Array([0]);
    for (let i = 0; i < 50; i++) {
      sent[0] = i;
      a.send(sent);
    }
    b.send(new Uint8Array([99]));
    await until(() => atB.got.length === 50 && atA.got.length === 1);
    expect(atB.got).toEqual(Array.from({ length: 50 }, (_, i) => i));
    a.close('done');
    await until(() => atB.closed.length === 1);
    expect(atA.closed).toEqual(['done']);
    expect(atB.closed).toEqual(['done']);
    expect(a.closed && b.closed).toBe(true);
    expect(() => a.send(new Uint8Array([1]))).toThrow(/closed/);
  });
});

describe('memory transport delays', () => {
  it('never let a later, faster message overtake an earlier, slower one', async () => {
    const delays = [30, 0, 15, 0, 5];
    const [a, b] = createMemoryTransportPair({ delay: () => delays.shift() ?? 0 });
    const atB = collect(b);
    for (let i = 0; i < 5; i++) a.send(new Uint8Array([i]));
    await until(() => atB.got.length === 5);
    expect(atB.got).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('memory transport flow control', () => {
  it('an end that pauses reads nothing until it resumes, then everything in order', async () => {
    const [a, b] = createMemoryTransportPair();
    const atB = collect(b);
    a.send(new Uint8Array([0]));
    await until(() => atB.got.length === 1);
    b.pause!();
    for (let i = 1; i < 4; i++) a.send(new Uint8Array([i]));
    await new Promise((r) => setTimeout(r, 30));
    expect(atB.got).toEqual([0]);
    b.resume!();
    await until(() => atB.got.length === 4);
    expect(atB.got).toEqual([0, 1, 2, 3]);
  });
});
