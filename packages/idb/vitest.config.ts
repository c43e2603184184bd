/**
 * Two runs of the same tests: in Node over fake-indexeddb, and in headless Chromium (Debian's,
 * /usr/bin/chromium, driven by playwright-core; nothing is downloaded). Without Chromium the
 * browser run is left out with a message, except on CI (CI=true), where that is an error.
 */
import { createServer } from 'node:net';
import { checkChromium, chromiumLaunchOptions } from '@minca/test-chromium';
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// Vite's caches and anything a run leaves stay here (gitignored), not in node_modules.
const ARTIFACTS = 'test-artifacts';

/** A port the OS has free on 127.0.0.1 (vitest's browser server takes no port 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function browserProject(port: number) {
  return {
    cacheDir: `${ARTIFACTS}/vite-browser`,
    resolve: { conditions: ['source', 'browser', 'module', 'import', 'default'] },
    test: {
      name: 'chromium',
      include: ['test/browser/**/*.test.ts'],
      testTimeout: 120_000,
      hookTimeout: 60_000,
      attachmentsDir: `${ARTIFACTS}/attachments`,
      browser: {
        enabled: true,
        headless: true,
        // Playwright launches with a fresh temporary profile and deletes it on close.
        provider: playwright({ launchOptions: chromiumLaunchOptions() }),
        instances: [{ browser: 'chromium' as const }],
        screenshotFailures: false,
        api: { host: '127.0.0.1', port, strictPort: false },
      },
    },
  };
}

export default defineConfig(async () => {
  const hasChromium = checkChromium('@minca/idb');
  const node = {
    extends: true as const,
    test: { name: 'node', include: ['test/*.test.ts'], exclude: ['test/browser/**'] },
  };
  return {
    ...shared,
    cacheDir: `${ARTIFACTS}/vite`,
    test: {
      ...shared.test,
      projects: hasChromium ? [node, browserProject(await freePort())] : [node],
    },
  };
});
