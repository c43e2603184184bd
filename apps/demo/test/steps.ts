/**
 * The steps every Chromium test of the demo takes: when to run, how long to wait, and signing
 * up or joining as a person does, by the labels a person reads.
 */
import type { Page } from 'playwright-core';
import { describe } from 'vitest';
import { HAS_CHROMIUM } from './browser.ts';

/** Runs where there is a Chromium, and always in CI, where a missing one must fail. */
export const inChromium: (name: string, tests: () => void) => void =
  HAS_CHROMIUM || process.env.CI === 'true' ? describe : describe.skip;

/** How long a step may wait for the page: syncing through the host takes a few seconds. */
export const WAIT = { timeout: 30_000 };

/** Signs up on the welcome page with `name`: a new account in this browser. */
export async function createAccount(page: Page, name: string): Promise<void> {
  await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: 'Create account', exact: true }).click();
}

/** On an invite's page, joins `space` as `name`. */
export async function joinAs(page: Page, name: string, space: string): Promise<void> {
  await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: `Join ${space}` }).click();
}
