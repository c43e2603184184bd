// The config Node 24 runs test/node-sqlite.suite.ts with (see test/runtimes.test.ts).
import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

export default defineConfig({
  ...shared,
  test: { ...shared.test, include: ['test/node-sqlite.suite.ts'] },
});
