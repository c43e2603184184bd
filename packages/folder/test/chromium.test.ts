/**
 * The handle seam in real headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core; nothing is downloaded): the conformance suites run in a page over OPFS. The
 * page is bundled by vite and served on 127.0.0.1. Without Chromium the test is skipped with a
 * message, except on CI (CI=true), where that fails.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkChromium, chromiumLaunchOptions } from '@minca/test-chromium';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CheckResult } from './browser/page.ts';

const here = dirname(fileURLToPath(import.meta.url));
const hasChromium = checkChromium('@minca/folder');

let work: string;
let server: Server | undefined;

/** Bundles the page for the browser and serves it with a one-line HTML page. */
async function serve(): Promise<string> {
  work = await mkdtemp(join(tmpdir(), 'minca-folder-chromium-'));
  const conditions = ['source', 'browser', 'module', 'import', 'default'];
  await build({
    configFile: false,
    logLevel: 'error',
    cacheDir: join(work, 'vite'),
    resolve: { conditions, alias: { vitest: join(here, 'browser', 'vitest-shim.ts') } },
    build: {
      outDir: join(work, 'out'),
      minify: false,
      target: 'es2022',
      lib: { entry: join(here, 'browser', 'page.ts'), formats: ['es'], fileName: () => 'page.js' },
    },
  });
  // The bundle is page.js and any chunks it imports.
  const out = join(work, 'out');
  const scripts = new Map<string, Buffer>();
  for (const name of await readdir(out)) {
    if (name.endsWith('.js')) scripts.set(`/${name}`, await readFile(join(out, name)));
  }
  server = createServer((request, response) => {
    const script = scripts.get(request.url ?? '');
    if (script) {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    } else {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><script type="module" src="/page.js"></script>');
    }
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

let url: string;
beforeAll(async () => {
  if (hasChromium) url = await serve();
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (work) await rm(work, { recursive: true, force: true, maxRetries: 5 });
});

it.skipIf(!hasChromium)(
  'passes the conformance suites over OPFS in headless Chromium',
  async () => {
    const profile = join(work, 'profile');
    const context = await chromium.launchPersistentContext(profile, chromiumLaunchOptions());
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
        else if (process.env.FOLDER_CHROMIUM_LOG) console.log(message.text());
      });
      await page.goto(url);
      await page
        .waitForFunction(() => 'runFolderChecks' in globalThis, undefined, { timeout: 30_000 })
        .catch((error: Error) => {
          throw new Error(`the page did not load: ${errors.join('; ') || error.message}`);
        });
      const results = await page.evaluate(() =>
        (
          globalThis as unknown as { runFolderChecks: () => Promise<CheckResult[]> }
        ).runFolderChecks(),
      );
      expect(errors).toEqual([]);
      expect(results.length).toBeGreaterThan(50);
      expect(results.filter((r) => r.error).map((r) => `${r.name}: ${r.error}`)).toEqual([]);
    } finally {
      await context.close();
    }
  },
  180_000,
);
