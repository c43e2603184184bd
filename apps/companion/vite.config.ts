import { defineConfig } from 'vite';

// As the demo's: workspace packages from their sources, and no timing notes in the build.
const checks = { bundlerTimings: false };

export default defineConfig({
  resolve: { conditions: ['source', 'browser', 'module', 'import', 'default'] },
  build: { outDir: 'dist', target: 'es2022', sourcemap: true, rolldownOptions: { checks } },
  cacheDir: 'test-artifacts/vite',
});
