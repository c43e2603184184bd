/**
 * Test fixtures: the app built once, a host, the app's server, and Debian's Chromium through
 * playwright-core (nothing downloaded), headless with the flags TOOLCHAIN.md gives.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions } from '@minca/test-chromium';
import { type Browser, chromium } from 'playwright-core';
import { build, createLogger } from 'vite';
import { cliMain, type RunningHost, startHost } from '../server/host.ts';
import { inviteStore } from '../server/invites.ts';
import { type AppServer, serveApp } from '../server/serve-app.ts';

export { HAS_CHROMIUM } from '@minca/test-chromium';

const APP = fileURLToPath(new URL('..', import.meta.url));
export const ARTIFACTS = join(APP, 'test-results');

/** What the last {@link buildApp} warned of: nothing, for a clean build. */
export const buildWarnings: string[] = [];

/** Builds the app as `pnpm build` does, into test-artifacts/app (dist is `pnpm start`'s). */
export async function buildApp(): Promise<string> {
  const outDir = join(APP, 'test-artifacts', 'app');
  const logger = createLogger('warn');
  buildWarnings.length = 0;
  logger.warn = (message) => void buildWarnings.push(message);
  logger.warnOnce = (message) => void buildWarnings.push(message);
  await build({
    root: APP,
    configFile: join(APP, 'vite.config.ts'),
    customLogger: logger,
    build: { outDir, emptyOutDir: true },
  });
  return outDir;
}

const COMPANION = dirname(createRequire(import.meta.url).resolve('@minca/companion/package.json'));

/** Builds the companion app (apps/companion) into its test-artifacts/app; its warnings too. */
export async function buildCompanion(): Promise<string> {
  const outDir = join(COMPANION, 'test-artifacts', 'app');
  const logger = createLogger('warn');
  logger.warn = (message) => void buildWarnings.push(`companion: ${message}`);
  logger.warnOnce = (message) => void buildWarnings.push(`companion: ${message}`);
  await build({
    root: COMPANION,
    configFile: join(COMPANION, 'vite.config.ts'),
    customLogger: logger,
    build: { outDir, emptyOutDir: true },
  });
  return outDir;
}

export function launch(): Promise<Browser> {
  // Playwright gives the browser a fresh temporary profile, and each context its own storage.
  return chromium.launch(chromiumLaunchOptions());
}

/** `minca host status --json` of a stopped host's data folder: the spaces it holds. */
export function heldSpaces(dataDir: string): Promise<Array<{ id: string; versions: number }>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cliMain(), '--json', 'host', 'status', '--data', dataDir],
      { env: { ...process.env, MINCA_HOME: join(dataDir, 'cli-home') } },
      (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(JSON.parse(stdout))),
    );
  });
}

export interface Stack {
  host: RunningHost;
  app: AppServer;
  /** The companion app, on a port (an origin) of its own, when asked for. */
  companion?: AppServer;
  dataDir: string;
  /** Stops the host, keeping its data, and starts it again on the same port. */
  restartHost(stopped?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** The host, the app's server, and with `companion` (its build) the companion's server. */
export async function startStack(root: string, companionRoot?: string): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'minca-demo-host-'));
  let host = await startHost({ dataDir });
  const app = await serveApp({
    root,
    host: () => host,
    invites: inviteStore(join(dataDir, 'invites')),
  });
  const companion = companionRoot
    ? await serveApp({
        root: companionRoot,
        host: () => host,
        config: (at) => ({ home: `http://${at}:${app.port}/` }),
      })
    : undefined;
  return {
    companion,
    get host() {
      return host;
    },
    app,
    dataDir,
    async restartHost(stopped) {
      const port = host.port;
      await host.close();
      await stopped?.();
      host = await startHost({ dataDir, port });
    },
    async close() {
      await companion?.close();
      await app.close();
      await host.close();
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
