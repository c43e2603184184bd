/**
 * Stands in for `vitest` inside the Chromium page bundle, so the conformance suites of
 * `@minca/core/testing` register their checks here and the page runs them in order. Only the
 * registering functions the suites call are real; `expect` is never used by them.
 */
type Check = { name: string; run: () => Promise<unknown> };

export const registered: Check[] = [];
const prefixes: string[] = [];

export function describe(name: string, body: () => void): void {
  prefixes.push(name);
  try {
    body();
  } finally {
    prefixes.pop();
  }
}

function register(title: string, run: () => Promise<unknown>): void {
  registered.push({ name: [...prefixes, title].join(' › '), run });
}

export const it = Object.assign(register, { skip: (_title: string, _run: unknown) => {} });
export const test = it;

export function afterEach(): void {
  throw new Error('afterEach is not available in the page');
}

export function expect(): never {
  throw new Error('expect is not available in the page');
}
