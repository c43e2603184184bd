/**
 * Fake timers for the files' timing rules. setImmediate stays real so WebCrypto's promises and
 * other real I/O can settle between steps of the fake clock.
 */
import { expect, vi } from 'vitest';
import { decodeMessage, encodeMessage, type Message } from '../../src/sync/messages.js';
import type { Transport } from '../../src/sync/transport.js';

export function useFakeClock(): void {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
}

// Taken before any test fakes it: real time for real work (WebCrypto, I/O) to finish in.
const realSetTimeout = globalThis.setTimeout;
const realTick = () => new Promise<void>((r) => realSetTimeout(r, 1));

/** Moves the fake clock `ms` forward in steps, letting real work settle after each. */
export async function advance(ms: number, step = 10): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await vi.advanceTimersByTimeAsync(Math.min(step, ms - t));
    await realTick();
    await realTick();
  }
}

/** Advances the fake clock until `check` holds, within `ms` of fake time. */
export async function within(
  ms: number,
  check: () => boolean | Promise<boolean>,
  what = 'condition',
  step = 10,
): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start >= ms) expect.fail(`timed out waiting for ${what}`);
    await advance(step, step);
  }
}

/**
 * Wraps a transport to see (and change) what it sends: `edit` may return a different message,
 * or null to drop it. `sent` counts messages by type.
 */
export function watched(
  transport: Transport,
  edit?: (m: Message) => Message | null,
): Transport & { sent: Map<string, number> } {
  const sent = new Map<string, number>();
  const send = transport.send.bind(transport);
  return Object.assign(transport, {
    sent,
    send(frame: Uint8Array) {
      const m = decodeMessage(frame);
      sent.set(m.t, (sent.get(m.t) ?? 0) + 1);
      const out = edit ? edit(m) : m;
      if (out === null) return;
      send(out === m ? frame : encodeMessage(out));
    },
  });
}

/** Awaits `promise` while moving the fake clock, so work that waits on timers gets done. */
export async function drive<T>(promise: Promise<T>, ms = 60_000, step = 10): Promise<T> {
  let settled = false;
  const watched = promise.finally(() => {
    settled = true;
  });
  watched.catch(() => undefined);
  await within(ms, () => settled, 'the operation', step);
  return watched;
}
