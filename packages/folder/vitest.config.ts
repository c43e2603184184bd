import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

export default defineConfig({
  ...shared,
  cacheDir: 'test-artifacts/vite',
  test: { ...shared.test, globalSetup: ['test/crash/build-worker.ts'] },
});
