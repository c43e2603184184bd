import { defineConfig } from 'vite';

// Workspace packages are read from their sources (the "source" export condition): no build of
// core or idb is needed first.
export default defineConfig({
  resolve: { conditions: ['source', 'browser', 'module', 'import', 'default'] },
  worker: { format: 'es' },
  build: { outDir: 'dist/app', target: 'es2022', sourcemap: true },
  cacheDir: 'test-artifacts/vite',
});
