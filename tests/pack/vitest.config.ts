import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// npm installs from the registry and builds better-sqlite3 for the CLI: minutes, not seconds.
export default defineConfig({
  ...shared,
  test: { ...shared.test, testTimeout: 900_000, hookTimeout: 300_000, fileParallelism: false },
});
