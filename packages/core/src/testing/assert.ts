/**
 * Assertions for the conformance checks. Plain functions that throw, so a check runs (and fails)
 * outside a test runner too, and a 1 MiB mismatch is reported as an offset, not a dump.
 */

/** Thrown when an adapter or blob store breaks the contract. */
export class ConformanceError extends Error {
  override readonly name = 'ConformanceError';
}

export function fail(message: string): never {
  throw new ConformanceError(message);
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) fail(message);
}

function show(value: unknown): string {
  if (value instanceof Uint8Array) return `Uint8Array(${value.length})`;
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Strict equality for primitives (`undefined` is not `null`). */
export function assertIs(actual: unknown, expected: unknown, what: string): void {
  if (!Object.is(actual, expected))
    fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Same strings in the same order; reports the first difference. */
export function assertStrings(
  actual: readonly string[],
  expected: readonly string[],
  what: string,
): void {
  assert(Array.isArray(actual), `${what}: expected an array, got ${show(actual)}`);
  const n = Math.max(actual.length, expected.length);
  for (let i = 0; i < n; i++) {
    if (actual[i] !== expected[i]) {
      fail(
        `${what}: differs at index ${i} (got ${show(actual[i])}, expected ${show(expected[i])}); ` +
          `got ${actual.length} keys ${show(actual.slice(0, 20))}, expected ${expected.length} ${show(expected.slice(0, 20))}`,
      );
    }
  }
}

/** `actual` is a Uint8Array holding exactly `expected`'s bytes. */
export function assertBytes(actual: unknown, expected: Uint8Array, what: string): void {
  assert(actual instanceof Uint8Array, `${what}: expected a Uint8Array, got ${show(actual)}`);
  assert(
    actual.length === expected.length,
    `${what}: expected ${expected.length} bytes, got ${actual.length}`,
  );
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i]) fail(`${what}: bytes differ at offset ${i}`);
  }
}

/**
 * Calls `run` and returns what its promise rejected with; fails if it resolved, or if `run`
 * threw instead of returning a rejected promise (every adapter method is async).
 */
export async function rejection(run: () => Promise<unknown>, what: string): Promise<unknown> {
  let promise: Promise<unknown>;
  try {
    promise = run();
  } catch (error) {
    fail(`${what}: threw synchronously instead of rejecting (${String(error)})`);
  }
  let resolved = false;
  try {
    await promise;
    resolved = true;
  } catch (error) {
    return error;
  }
  assert(!resolved, `${what}: expected a rejection, but it resolved`);
  return undefined;
}
