// Debian's Chromium as minca's tests and benchmarks launch it through playwright-core (nothing
// downloaded), headless as root with the flags TOOLCHAIN.md gives. Plain JavaScript, so vitest
// configs, tests and the built benchmarks all load this one file without a build step.
import { existsSync } from 'node:fs';

/** Where Chromium is: `MINCA_CHROMIUM`, or Debian's `/usr/bin/chromium`. */
export const CHROMIUM = process.env.MINCA_CHROMIUM ?? '/usr/bin/chromium';

/** Whether {@link CHROMIUM} is there. */
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** Headless as root, and quiet: no sandbox, GPU, QUIC, first-run, background or sync traffic. */
export const CHROMIUM_ARGS = Object.freeze([
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]);

/**
 * Options for playwright-core's `chromium.launch` (which gives each browser a fresh temporary
 * profile, its user-data-dir, and deletes it on close) or `launchPersistentContext` (pass it a
 * fresh directory).
 */
export function chromiumLaunchOptions() {
  return { executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] };
}

/**
 * Whether Chromium is there for `who`'s browser run. Where it is missing, that is an error on CI
 * (`CI=true`), which must run every test, and elsewhere a warning that the run is skipped.
 */
export function checkChromium(who) {
  if (HAS_CHROMIUM) return true;
  if (process.env.CI === 'true') {
    throw new Error(
      `${who}: the browser tests need Chromium at ${CHROMIUM}; run scripts/bootstrap.mjs --with-system-deps`,
    );
  }
  console.warn(`${who}: ${CHROMIUM} is missing, so the Chromium run is skipped`);
  return false;
}
