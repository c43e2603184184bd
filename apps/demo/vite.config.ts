import { defineConfig } from 'vite';

// Rolldown's note that plugins took most of a build's time depends on how loaded the machine
// is, not on the app: off, so a build prints a warning only for something to fix.
const checks = { bundlerTimings: false };

// The service worker is an entry of its own at a fixed address (media-sw.js, at the root so its
// scope is the app); it imports nothing at run time, so it is one file.
const input = { index: 'index.html', 'media-sw': 'src/media-sw.ts' };
const entryFileNames = (chunk: { name: string }) =>
  chunk.name === 'media-sw' ? 'media-sw.js' : 'assets/[name]-[hash].js';

// Workspace packages are read from their sources (the "source" export condition): no build of
// core or idb is needed first.
export default defineConfig({
  resolve: { conditions: ['source', 'browser', 'module', 'import', 'default'] },
  worker: { format: 'es', rolldownOptions: { checks } },
  build: {
    outDir: 'dist/app',
    target: 'es2022',
    sourcemap: true,
    rolldownOptions: { checks, input, output: { entryFileNames } },
  },
  cacheDir: 'test-artifacts/vite',
});
