import { defineConfig } from 'vitest/config';

// Workspace packages export a "source" condition pointing at src/, so tests run against the
// sources of their dependencies without a build step.
const conditions = ['source', 'module', 'node', 'import', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['source'] } },
  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
});
