/**
 * vitest globalSetup: bundles the crash test's worker (and the package's sources with it) into
 * runnable JS, since a child process can't load TypeScript on Node 20.
 */
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    crashWorker: string;
  }
}

const here = dirname(fileURLToPath(import.meta.url));
const conditions = ['source', 'module', 'node', 'import', 'default'];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Inside the package, so the bundle finds vitest (imported by @minca/core/testing).
  const outDir = join(here, '..', '..', 'test-artifacts', `crash-worker-${process.pid}`);
  await mkdir(outDir, { recursive: true });
  await build({
    configFile: false,
    logLevel: 'warn',
    resolve: { conditions },
    ssr: {
      noExternal: /^@minca\//,
      external: ['vitest'],
      resolve: { conditions, externalConditions: conditions },
    },
    build: {
      ssr: join(here, 'worker.ts'),
      outDir,
      emptyOutDir: true,
      minify: false,
      target: 'node20',
      rollupOptions: { output: { entryFileNames: 'worker.mjs', format: 'es' } },
    },
  });
  project.provide('crashWorker', join(outDir, 'worker.mjs'));
  return () => rm(outDir, { recursive: true, force: true });
}
