// keepConnectedToAny: several addresses of one service (a fleet's hosts), moving on to the next
// when a connection fails or closes, with a backoff that grows with failures in a row.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Transport } from '../src/sync/transport.js';
import { keepConnectedToAny, type WebSocketLike } from '../src/sync/websocket-transport.js';

/** A socket the test opens, fails or closes by hand. */
class FakeSocket implements WebSocketLike {
  binaryType = 'blob';
  readyState = 0;
  sent: Uint8Array[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code?: number; reason?: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: Uint8Array) {
    this.sent.push(data);
  }
  close() {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ reason: 'closed here' });
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  fail() {
    this.readyState = 3;
    this.onerror?.({});
  }
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function harness(urls: string[], options = {}) {
  const sockets: FakeSocket[] = [];
  const used: Array<{ url: string; transport: Transport }> = [];
  const kept = keepConnectedToAny(
    urls,
    (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    (transport, url) => used.push({ url, transport }),
    { minDelayMs: 100, maxDelayMs: 1_000, random: () => 1, ...options },
  );
  return { sockets, used, kept, last: () => sockets[sockets.length - 1]! };
}

describe('keepConnectedToAny', () => {
  it('moves to the next address when one fails, and back round', async () => {
    const { sockets, used, kept, last } = harness(['ws://a', 'ws://b', 'ws://c']);
    expect(last().url).toBe('ws://a');
    last().fail();
    // Backoff times a random factor of 0.5 + 1/2: 100 ms, then 200, 400 …
    await vi.advanceTimersByTimeAsync(99);
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(last().url).toBe('ws://b');
    last().fail();
    await vi.advanceTimersByTimeAsync(200);
    expect(last().url).toBe('ws://c');
    last().fail();
    await vi.advanceTimersByTimeAsync(400);
    expect(last().url).toBe('ws://a');
    expect(kept.current()).toBe('ws://a');
    expect(used.map((u) => u.url)).toEqual(['ws://a', 'ws://b', 'ws://c', 'ws://a']);
    kept.close();
  });

  it('resets the backoff once a connection opened, and moves on when it closes', async () => {
    const { sockets, kept, last } = harness(['ws://a', 'ws://b']);
    last().fail();
    await vi.advanceTimersByTimeAsync(100);
    last().fail();
    await vi.advanceTimersByTimeAsync(200);
    expect(last().url).toBe('ws://a');
    last().open();
    // The host goes away: the next one is tried after the shortest wait.
    last().onclose?.({ reason: 'gone' });
    await vi.advanceTimersByTimeAsync(100);
    expect(last().url).toBe('ws://b');
    expect(sockets).toHaveLength(4);
    kept.close();
  });

  it('gives up on an address that does not answer in time', async () => {
    const { kept, last } = harness(['ws://silent', 'ws://b'], { openTimeoutMs: 2_000 });
    await vi.advanceTimersByTimeAsync(1_999);
    expect(last().url).toBe('ws://silent');
    await vi.advanceTimersByTimeAsync(1 + 100);
    expect(last().url).toBe('ws://b');
    last().open();
    // Open: the timeout no longer applies.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(last().url).toBe('ws://b');
    kept.close();
  });

  it('stops for good on close, and starts where asked', async () => {
    const { sockets, kept, last } = harness(['ws://a', 'ws://b'], { first: 1 });
    expect(last().url).toBe('ws://b');
    kept.close();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sockets).toHaveLength(1);
    expect(() =>
      keepConnectedToAny(
        [],
        () => new FakeSocket('x'),
        () => {},
      ),
    ).toThrow(TypeError);
  });
});
