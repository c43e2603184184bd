import { isMincaError, type MincaErrorCode } from '@minca/core';
import { afterAll, beforeAll, expect } from 'vitest';

/** Awaits `promise` and expects it to reject with a MincaError of `code`; returns the error. */
export async function expectMincaError(
  promise: Promise<unknown>,
  code: MincaErrorCode,
): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isMincaError(error, code), `expected MincaError(${code}), got ${String(error)}`).toBe(
    true,
  );
  return error as Error;
}

/** `count` bytes, a function of `seed`, so a mix-up between objects shows. */
export function bytesOf(seed: number, count: number): Uint8Array {
  const bytes = new Uint8Array(count);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

/** Runs `task` over `items` with at most `limit` at a time. */
export async function inBatches<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Expects `actual` to be exactly `expected`, fast (toEqual walks large arrays slowly). */
export function expectBytes(actual: Uint8Array | null, expected: Uint8Array): void {
  expect(actual).toBeInstanceOf(Uint8Array);
  expect(actual!.length).toBe(expected.length);
  expect(Buffer.compare(actual!, expected), 'bytes differ').toBe(0);
}

/** A 127.0.0.1 port nothing listens on (bound, then closed), for refused connections. */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A value started before the tests of this file (or of the describe block this is called in)
 * and stopped after them. What it returns stands for the value: read it inside tests only.
 */
export function perFile<T extends object>(
  start: () => Promise<T>,
  stop: (value: T) => Promise<void>,
): T {
  let value: T | undefined;
  beforeAll(async () => {
    value = await start();
  });
  afterAll(async () => {
    if (value) await stop(value);
    value = undefined;
  });
  const started = (): T => {
    if (!value) throw new Error('used outside the tests it was started for');
    return value;
  };
  return new Proxy({} as T, {
    get(_, key) {
      const v = Reflect.get(started(), key);
      return typeof v === 'function' ? v.bind(started()) : v;
    },
    set: (_, key, v) => Reflect.set(started(), key, v),
  });
}
