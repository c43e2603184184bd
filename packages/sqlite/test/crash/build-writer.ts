/**
 * Bundles the crash test's writer and the sources it imports (this package's and core's, by
 * their `source` condition) into one ES module in a temp dir, so a plain `node` child can run
 * it without a build of the workspace. better-sqlite3 stays out: the writer loads it by path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const conditions = ['source', 'module', 'node', 'import', 'default'];

/** The bundled writer's path, and a function deleting it. */
export async function buildWriter(): Promise<{ path: string; dispose: () => void }> {
  const outDir = mkdtempSync(join(tmpdir(), 'minca-sqlite-writer-'));
  await build({
    configFile: false,
    logLevel: 'silent',
    root: here,
    resolve: { conditions },
    ssr: { noExternal: true, external: ['better-sqlite3'], resolve: { conditions } },
    build: {
      ssr: join(here, 'writer.ts'),
      outDir,
      emptyOutDir: false,
      minify: false,
      target: 'node20',
      rollupOptions: { output: { format: 'es', entryFileNames: 'writer.mjs' } },
    },
  });
  return {
    path: join(outDir, 'writer.mjs'),
    dispose: () => rmSync(outDir, { recursive: true, force: true }),
  };
}
