/**
 * The demo as three people use it, in headless Chromium (Debian's): Ada on a laptop, Bo in a
 * second browser profile in dark mode, Cy on a phone-sized screen, each their own storage, and
 * the local host. Sign up with a name, invite by a short link, join in one click, post a photo
 * without text, see names everywhere, go offline and back, go back to the spaces list. Each
 * step's screenshot is kept in test/screenshots/ (committed), and axe-core checks every page.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import { buildApp, buildWarnings, launch, type Stack, startStack } from './browser.ts';
import { sunsetPng } from './png.ts';
import { createAccount, inChromium, joinAs, WAIT } from './steps.ts';

const SHOTS = fileURLToPath(new URL('./screenshots/', import.meta.url));

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/** axe-core finds nothing serious or critical on the page as it is now. */
async function accessible(page: Page) {
  expect(await seriousViolations(page)).toEqual([]);
}

const postTexts = (page: Page) => page.locator('#feed article .text').allTextContents();
const authors = (page: Page) => page.locator('#feed article .author').allTextContents();
const people = (page: Page) => page.locator('#members .person .name').allTextContents();
/** No key ids anywhere a person reads: names only. */
const showsNoKeys = async (page: Page) =>
  expect(await page.locator('main').textContent()).not.toMatch(/z6Mk|did:key/);

inChromium('three people in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let ada: Page;
  let bo: Page;
  let cy: Page;
  let dee: Page;
  let link: string;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    stack = await startStack(await buildApp());
    browser = await launch();
    const open = async (options: Parameters<Browser['newContext']>[0], who: string) => {
      const context = await browser.newContext(options);
      contexts.push(context);
      const page = await context.newPage();
      page.on('console', (m) => m.type() === 'error' && console.error(`${who}: ${m.text()}`));
      page.on('pageerror', (e) => console.error(`${who}: ${e.message}`));
      return page;
    };
    const origin = new URL(stack.app.url).origin;
    ada = await open(
      {
        viewport: { width: 1280, height: 860 },
        permissions: ['clipboard-read', 'clipboard-write'],
        colorScheme: 'light',
      },
      'Ada',
    );
    await ada.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    bo = await open({ viewport: { width: 1280, height: 860 }, colorScheme: 'dark' }, 'Bo');
    cy = await open(
      {
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        colorScheme: 'light',
      },
      'Cy',
    );
  }, 180_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await stack?.close();
  });

  it('builds without a warning', () => {
    expect(buildWarnings).toEqual([]);
  });

  it('Ada signs up with her name and makes a space', async () => {
    await ada.goto(stack.app.url);
    await ada.getByRole('heading', { name: 'Welcome to minca' }).waitFor(WAIT);
    await accessible(ada);
    await shot(ada, '01-ada-welcome');
    await createAccount(ada, 'Ada');
    await ada.getByRole('heading', { name: 'Your spaces' }).waitFor(WAIT);
    await accessible(ada);
    await shot(ada, '02-ada-spaces');
    await ada.getByLabel('Space name').fill('Friends');
    await ada.getByRole('button', { name: 'Create space' }).click();
    await ada.locator('main[data-rendered="true"]').waitFor(WAIT);
    await expect.poll(() => ada.locator('#space-title').textContent(), WAIT).toBe('Friends');
    // Her name, from sign-up, is her profile in the space.
    await expect.poll(() => people(ada), WAIT).toEqual(['Ada']);
    await expect
      .poll(() => ada.locator('#sync-state').textContent(), WAIT)
      .toBe('Up to date with the host');
    await accessible(ada);
    await shot(ada, '03-ada-new-space');
  });

  it('Ada copies a short invite link, and stays in the space', async () => {
    await ada.getByRole('button', { name: 'Invite someone' }).click();
    const input = ada.locator('#invite-link');
    await expect.poll(() => input.inputValue(), WAIT).toMatch(/#join=/);
    link = await input.inputValue();
    expect(link.length).toBeLessThan(100);
    await ada.getByRole('button', { name: 'Copy link' }).click();
    await expect.poll(() => ada.locator('#invite-status').textContent(), WAIT).toMatch(/^Copied/);
    expect(await ada.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await accessible(ada);
    await shot(ada, '04-ada-invite-link');
    await ada.getByRole('button', { name: 'Done' }).click();
    expect(new URL(ada.url()).hash).toMatch(/&s=/);
  });

  it('Bo opens it, is told who invites him to what, and joins in one click', async () => {
    await bo.goto(link);
    await bo.getByRole('heading', { name: 'Ada invites you to Friends' }).waitFor(WAIT);
    await accessible(bo);
    await shot(bo, '05-bo-join-page-dark');
    await joinAs(bo, 'Bo', 'Friends');
    await bo.locator('main[data-rendered="true"]').waitFor(WAIT);
    await expect.poll(() => bo.locator('#space-title').textContent(), WAIT).toBe('Friends');
    await expect.poll(async () => (await people(bo)).sort(), WAIT).toEqual(['Ada', 'Bo']);
    await accessible(bo);
    await shot(bo, '06-bo-joined-dark');
  });

  it('Cy joins on a phone from a second link', async () => {
    await ada.getByRole('button', { name: 'Invite someone' }).click();
    await expect.poll(() => ada.locator('#invite-link').inputValue(), WAIT).toMatch(/#join=/);
    const second = await ada.locator('#invite-link').inputValue();
    expect(second).not.toBe(link);
    await ada.keyboard.press('Escape');
    await cy.goto(second);
    await cy.getByRole('heading', { name: 'Ada invites you to Friends' }).waitFor(WAIT);
    await cy.getByLabel('Your name').fill('Cy');
    await shot(cy, '07-cy-join-page-phone');
    await cy.getByRole('button', { name: 'Join Friends' }).click();
    await cy.locator('main[data-rendered="true"]').waitFor(WAIT);
    await expect.poll(async () => (await people(cy)).sort(), WAIT).toEqual(['Ada', 'Bo', 'Cy']);
    await expect.poll(async () => (await people(ada)).sort(), WAIT).toEqual(['Ada', 'Bo', 'Cy']);
  });

  it('Bo posts a photo without text; everyone sees it, with his name', async () => {
    await bo.getByLabel('Add a photo').setInputFiles({
      name: 'sunset.png',
      mimeType: 'image/png',
      buffer: sunsetPng(1200, 800),
    });
    await bo.getByRole('button', { name: 'Post', exact: true }).click();
    for (const page of [bo, ada, cy]) {
      await expect.poll(() => authors(page), WAIT).toEqual(['Bo']);
      expect(await postTexts(page)).toEqual([]);
      await page.locator('#feed img.photo[data-kind="full"]').waitFor(WAIT);
      await showsNoKeys(page);
    }
    await shot(bo, '08-bo-posted-photo-dark');
    await accessible(cy);
    await shot(cy, '09-cy-feed-phone');
  });

  it('Cy opens the photo large, and closes it with the keyboard', async () => {
    const open = cy.getByRole('button', { name: 'Open the photo by Bo' });
    await open.click();
    const dialog = cy.locator('dialog.lightbox');
    await dialog.waitFor(WAIT);
    await cy.locator('dialog.lightbox img[data-kind="full"]').waitFor(WAIT);
    const size = await cy
      .locator('dialog.lightbox img')
      .evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
    expect(size).toEqual([1200, 800]);
    await accessible(cy);
    await shot(cy, '10-cy-lightbox-phone');
    await cy.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', ...WAIT });
    // Focus went back to the photo it came from.
    expect(await cy.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Open the photo by Bo',
    );
    await shot(ada, '11-ada-people');
  });

  it('Cy goes offline, posts, sees it waiting, and it arrives once back online', async () => {
    await cy.getByRole('button', { name: 'Go offline' }).click();
    await expect.poll(() => cy.locator('#network').textContent(), WAIT).toContain('Offline');
    await cy.getByLabel('Write a post').fill('On the train, no signal');
    await cy.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => postTexts(cy), WAIT).toContain('On the train, no signal');
    await expect
      .poll(() => cy.locator('#sync-state').textContent(), WAIT)
      .toBe('Offline: 1 post waiting to send');
    expect(await postTexts(ada)).not.toContain('On the train, no signal');
    expect(await cy.getByRole('button', { name: 'Go online' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await accessible(cy);
    await shot(cy, '12-cy-offline-phone');
    await cy.getByRole('button', { name: 'Go online' }).click();
    await expect
      .poll(() => cy.locator('#sync-state').textContent(), WAIT)
      .toBe('Up to date with the host');
    await expect.poll(() => postTexts(ada), WAIT).toContain('On the train, no signal');
    await expect.poll(() => authors(ada), WAIT).toEqual(['Cy', 'Bo']);
    await shot(cy, '13-cy-back-online-phone');
    await shot(ada, '14-ada-sees-cy');
  });

  it('navigates: the skip link, "← Spaces", and the header link, without losing the account', async () => {
    const before = cy.url();
    // The skip link is the first thing a Tab reaches, and Enter on it moves focus to the
    // content without leaving the space.
    const first = await cy.evaluate(
      () => document.querySelector<HTMLElement>('a[href], button, input, textarea, select')?.id,
    );
    expect(first).toBe('skip-link');
    await cy.locator('#skip-link').focus();
    await cy.keyboard.press('Enter');
    expect(await cy.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(cy.url()).toBe(before);
    await cy.getByRole('link', { name: '← Spaces' }).click();
    await cy.getByRole('heading', { name: 'Your spaces' }).waitFor(WAIT);
    expect(await cy.locator('#spaces').textContent()).toContain('Friends');
    await accessible(cy);
    await shot(cy, '15-cy-spaces-phone');
    await cy.getByRole('link', { name: 'Friends' }).click();
    await cy.locator('main[data-rendered="true"]').waitFor(WAIT);
    await cy.getByRole('link', { name: 'minca' }).click();
    await cy.getByRole('heading', { name: 'Your spaces' }).waitFor(WAIT);
    // Ada opening her own invite link lands in the space, not on a join page.
    await ada.goto(link);
    await ada.getByRole('link', { name: 'Open Friends' }).click();
    await ada.locator('main[data-rendered="true"]').waitFor(WAIT);
    expect(await ada.locator('#space-title').textContent()).toBe('Friends');
  });

  it('Ada is told when her first link was passed on and used by a second person', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    contexts.push(context);
    dee = await context.newPage();
    await dee.goto(link);
    await dee.getByRole('heading', { name: 'Ada invites you to Friends' }).waitFor(WAIT);
    await joinAs(dee, 'Dee', 'Friends');
    await dee.locator('main[data-rendered="true"]').waitFor(WAIT);
    // Two accounts accepted one invite: the owner sees who, by name.
    await expect
      .poll(() => ada.locator('#invite-alerts').textContent(), WAIT)
      .toContain('One invite link was used by 2 people: Bo and Dee.');
    // Nobody else is told: only the owner made the invite.
    expect(await bo.locator('#invite-alerts').textContent()).toBe('');
    await accessible(ada);
    await shot(ada, '16-ada-invite-reused');
    // The first to use the link lost nothing: Bo is still in, and his photo stands for all.
    await cy.getByRole('link', { name: 'Friends' }).click();
    await cy.locator('main[data-rendered="true"]').waitFor(WAIT);
    for (const page of [ada, bo, cy, dee]) {
      await expect.poll(() => authors(page), WAIT).toContain('Bo');
      await page.locator('#feed img.photo').first().waitFor(WAIT);
    }
    await expect
      .poll(async () => (await people(bo)).sort(), WAIT)
      .toEqual(['Ada', 'Bo', 'Cy', 'Dee']);
  });

  it('Ada removes Dee, after saying what it does; what Dee posts after shows to nobody', async () => {
    await dee.getByLabel('Write a post').fill('Hi, I am Dee');
    await dee.getByRole('button', { name: 'Post', exact: true }).click();
    for (const page of [ada, bo, cy]) {
      await expect.poll(() => postTexts(page), WAIT).toContain('Hi, I am Dee');
    }
    // Dee is offline when she is removed, so her next post is written before she knows.
    await dee.getByRole('button', { name: 'Go offline' }).click();
    await ada.getByRole('button', { name: 'Remove Dee', exact: true }).click();
    const dialog = ada.locator('#confirm');
    await dialog.waitFor(WAIT);
    expect(await dialog.getByRole('heading').textContent()).toBe('Remove Dee from Friends?');
    // Cancel is where focus starts: Enter alone removes nobody.
    expect(await ada.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await accessible(ada);
    await shot(ada, '17-ada-remove-dee');
    await dialog.getByRole('button', { name: 'Remove Dee' }).click();
    await dialog.waitFor({ state: 'detached', ...WAIT });
    await expect.poll(async () => (await people(ada)).sort(), WAIT).toEqual(['Ada', 'Bo', 'Cy']);
    await expect.poll(() => ada.locator('#invite-alerts').textContent(), WAIT).toBe('');

    await dee.getByLabel('Write a post').fill('Am I still in?');
    await dee.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => postTexts(dee), WAIT).toContain('Am I still in?');
    await ada.getByLabel('Write a post').fill('Only the three of us now');
    await ada.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => postTexts(bo), WAIT).toContain('Only the three of us now');
    await dee.getByRole('button', { name: 'Go online' }).click();
    // Dee's post reached the host (she is level with it), and Bo writes after it got there.
    await expect
      .poll(() => dee.locator('#sync-state').textContent(), WAIT)
      .toBe('Up to date with the host');
    await bo.getByLabel('Write a post').fill('After Dee left');
    await bo.getByRole('button', { name: 'Post', exact: true }).click();
    for (const page of [ada, cy]) {
      await expect.poll(() => postTexts(page), WAIT).toContain('After Dee left');
    }
    for (const page of [ada, bo, cy]) {
      const texts = await postTexts(page);
      // What Dee wrote while in the space stands; what she wrote after doesn't, anywhere.
      expect(texts).toContain('Hi, I am Dee');
      expect(await authors(page)).toContain('Dee');
      expect(texts).not.toContain('Am I still in?');
      expect(await people(page)).not.toContain('Dee');
    }
    // The space's key changed at the removal: Dee holds Ada's post and can't open it.
    expect(await postTexts(dee)).not.toContain('Only the three of us now');
    expect(await postTexts(dee)).not.toContain('After Dee left');
    await accessible(ada);
    await shot(ada, '18-ada-after-removing-dee');
  });
});
