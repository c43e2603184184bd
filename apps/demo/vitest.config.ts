import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

export default defineConfig({
  ...shared,
  cacheDir: 'test-artifacts/vitest',
  test: { ...shared.test, testTimeout: 90_000, hookTimeout: 120_000, fileParallelism: false },
});
