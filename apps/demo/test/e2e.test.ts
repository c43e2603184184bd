/**
 * The demo end to end, in headless Chromium: two people (two browser contexts, each its own
 * profile's storage) and the local host. Screenshots of each step go to test-results/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ARTIFACTS, buildApp, heldSpaces, launch, type Stack, startStack } from './browser.ts';
import { png } from './png.ts';
import { createAccount, inChromium, joinAs, WAIT } from './steps.ts';

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** The decoded size of the picture `img` shows, once it shows one. */
async function naturalSize(img: ReturnType<Page['locator']>): Promise<number[]> {
  await img.waitFor(WAIT);
  return img.evaluate((el: HTMLImageElement) =>
    el.decode().then(() => [el.naturalWidth, el.naturalHeight]),
  );
}
const spaceOf = (url: string) => new URL(url).hash.match(/s=([a-z2-7]+)/)![1]!;
const postTexts = (page: Page) => page.locator('#feed article .text').allTextContents();

inChromium('the demo in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let ada: BrowserContext;
  let bo: BrowserContext;
  let a: Page;
  let b: Page;
  let spaceUrl: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    stack = await startStack(await buildApp());
    browser = await launch();
    ada = await browser.newContext({ viewport: { width: 900, height: 900 } });
    bo = await browser.newContext({ viewport: { width: 390, height: 844 } }); // a phone
    a = await ada.newPage();
    b = await bo.newPage();
    for (const [who, page] of [
      ['A', a],
      ['B', b],
    ] as const) {
      page.on('console', (m) => m.type() === 'error' && console.error(`${who}: ${m.text()}`));
      page.on('pageerror', (e) => console.error(`${who}: ${e.message}`));
    }
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('A creates an account and a space, and posts a photo', async () => {
    await a.goto(stack.app.url);
    await createAccount(a, 'Ada');
    // Her name is the one she signed up with; her picture she adds, resized here.
    await a.getByText('Your name and picture').click();
    await a.getByLabel('Picture (optional)').setInputFiles({
      name: 'ada.png',
      mimeType: 'image/png',
      buffer: png(600, 400, [200, 40, 40]),
    });
    await a.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(() => a.locator('#profile [role="status"]').textContent(), WAIT)
      .toContain('Saved');
    await a.getByLabel('Space name').fill('Friends');
    await a.getByRole('button', { name: 'Create space' }).click();
    await a.locator('main[data-rendered="true"]').waitFor(WAIT);
    await a.getByLabel('Write a post').fill('A red photo from Ada');
    await a.getByLabel('Add a photo').setInputFiles({
      name: 'red.png',
      mimeType: 'image/png',
      buffer: png(1200, 800, [200, 40, 40]),
    });
    await a.getByRole('button', { name: 'Post', exact: true }).click();
    const photo = a.locator('article img.photo');
    await photo.waitFor(WAIT);
    // The picture was added here, so it is read from this device at once.
    expect(await naturalSize(a.locator('article img.photo[data-kind="full"]'))).toEqual([
      1200, 800,
    ]);
    await expect.poll(() => a.locator('#network').textContent(), WAIT).toContain('connected');
    spaceUrl = a.url();
    // The host holds the space without its key, as the owner let it: it names it back, and A
    // is level with it.
    await expect
      .poll(() => a.locator('#peers .peer').getAttribute('data-level'), WAIT)
      .toBe('true');
    await shot(a, '1-ada-posted');
  });

  it('B joins with an invite link and sees the post and the photo', async () => {
    await a.getByRole('button', { name: 'Invite someone' }).click();
    await expect.poll(() => a.locator('#invite-link').inputValue(), WAIT).toContain('#join=');
    const link = await a.locator('#invite-link').inputValue();
    await a.keyboard.press('Escape');
    await b.goto(link);
    // The link carries the invite: the page says who invites B to which space.
    await b.getByRole('heading', { name: 'Ada invites you to Friends' }).waitFor(WAIT);
    await joinAs(b, 'Bo', 'Friends');
    await expect.poll(() => postTexts(b), WAIT).toEqual(['A red photo from Ada']);
    // The thumbnail comes with the record; the picture is fetched ahead, being under 5 MiB.
    expect(await naturalSize(b.locator('article img.photo[data-kind="full"]'))).toEqual([
      1200, 800,
    ]);
    await expect.poll(() => b.locator('article .author').first().textContent(), WAIT).toBe('Ada');
    await expect.poll(() => b.locator('h2#space-title').textContent(), WAIT).toBe('Friends');
    // Ada's avatar was resized to at most 256 px before it was added.
    const avatar = b.locator('article .author').first().locator('xpath=preceding-sibling::img');
    await expect.poll(() => avatar.getAttribute('src'), WAIT).toMatch(/^blob:/);
    expect(await naturalSize(avatar)).toEqual([256, 171]);
    await shot(b, '2-bo-joined');
  });

  it('a device fetching only small files shows the thumbnail, and the photo when asked', async () => {
    await b
      .getByLabel('Fetch ahead, unread')
      .selectOption({ label: 'Thumbnails and small files (256 KiB)' });
    await expect.poll(() => b.locator('#limits-status').textContent(), WAIT).toContain('Saved');
    await a.getByLabel('Write a post').fill('A big noisy one');
    await a.getByLabel('Add a photo').setInputFiles({
      name: 'noise.png',
      mimeType: 'image/png',
      buffer: png(400, 300, [0, 0, 0], true),
    });
    await a.getByRole('button', { name: 'Post', exact: true }).click();
    const post = b.locator('article', { hasText: 'A big noisy one' });
    await post.waitFor(WAIT);
    // Its thumbnail is a small file, so it is fetched ahead: it shows, the photo does not.
    expect(await naturalSize(post.locator('img.photo[data-kind="thumbnail"]'))).toEqual([320, 240]);
    const fetch = post.getByRole('button', { name: /Show the full photo \(3\d\d KiB\)/ });
    await fetch.waitFor(WAIT);
    await shot(b, '3-bo-thumbnail-only');
    // B is connected only to the host: the picture comes from there.
    await fetch.click();
    expect(await naturalSize(post.locator('img.photo[data-kind="full"]'))).toEqual([400, 300]);
    // Its download progress reached the file's size.
    const figure = post.locator('figure');
    const [value, max] = await figure.evaluate((f: HTMLElement) => [
      Number(f.dataset.progressDone),
      Number(f.dataset.progressTotal),
    ]);
    expect(value).toBe(max);
    expect(max).toBeGreaterThan(300 * 1024);
    await shot(b, '3-bo-full-photo');
  });

  it('B goes offline, posts, comes back, and both converge', async () => {
    await bo.setOffline(true);
    await expect.poll(() => b.locator('#network').textContent(), WAIT).toContain('Offline');
    await expect.poll(() => b.locator('#peers').textContent(), WAIT).toContain('Offline');
    await b.getByLabel('Write a post').fill('Bo, on the train');
    await b.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => postTexts(b), WAIT).toContain('Bo, on the train');
    await a.getByLabel('Write a post').fill('Ada, meanwhile');
    await a.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => postTexts(a), WAIT).toContain('Ada, meanwhile');
    // B's post is only in B's browser: A doesn't have it.
    expect(await postTexts(a)).not.toContain('Bo, on the train');
    await shot(b, '4-bo-offline');

    await bo.setOffline(false);
    const all = ['A big noisy one', 'A red photo from Ada', 'Ada, meanwhile', 'Bo, on the train'];
    await expect.poll(async () => (await postTexts(a)).sort(), WAIT).toEqual(all);
    await expect.poll(async () => (await postTexts(b)).sort(), WAIT).toEqual(all);
    // Level with the host on both sides: the same versions everywhere.
    for (const page of [a, b]) {
      await expect
        .poll(() => page.locator('#peers .peer').getAttribute('data-level'), WAIT)
        .toBe('true');
    }
    await shot(a, '5-ada-converged');
    await shot(b, '5-bo-converged');
  });

  it('a reload shows everything from IndexedDB before the host answers', async () => {
    const before = (await postTexts(b)).sort();
    await stack.restartHost(async () => {
      // The host is down: whatever the pages show now comes from their own IndexedDB.
      for (const page of [a, b]) {
        await page.reload();
        await page.locator('main[data-rendered="true"]').waitFor(WAIT);
        expect((await postTexts(page)).sort()).toEqual(before);
        await expect
          .poll(() => page.locator('#network').textContent(), WAIT)
          .toContain('connecting');
        expect(await page.locator('article img.photo').count()).toBe(2);
      }
      await shot(b, '6-bo-reloaded-host-down');
      // The host kept the space without its key: `minca host status` on its data says so.
      const held = await heldSpaces(stack.dataDir);
      expect(held.map((s) => s.id)).toEqual([spaceOf(spaceUrl)]);
      expect(held[0]!.versions).toBeGreaterThan(4);
    });
    await expect.poll(() => b.locator('#network').textContent(), WAIT).toContain('connected');
  });

  it('without SharedWorker, runs the node in the tab in view and tells the other tabs', async () => {
    const context = await browser.newContext();
    const one = await context.newPage();
    await one.goto(`${stack.app.url}?tab-worker`);
    await createAccount(one, 'Di');
    await one.getByLabel('Space name').fill('Tabs');
    await one.getByRole('button', { name: 'Create space' }).click();
    await one.locator('main[data-rendered="true"]').waitFor(WAIT);
    expect(await one.locator('body').getAttribute('data-node')).toMatch(/^tab:/);
    const two = await context.newPage();
    await two.goto(one.url());
    await two.locator('main[data-rendered="true"]').waitFor(WAIT);
    // Each tab has its own worker: the one in view runs the node.
    expect(await two.locator('body').getAttribute('data-node')).toMatch(/^tab:/);
    expect(await two.locator('body').getAttribute('data-node')).not.toBe(
      await one.locator('body').getAttribute('data-node'),
    );
    await two.getByLabel('Write a post').fill('From tab two');
    await two.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => postTexts(two), WAIT).toEqual(['From tab two']);
    // Back to the first tab: it takes the node again and shows what the other wrote.
    await one.bringToFront();
    await one.evaluate(() => window.dispatchEvent(new Event('focus')));
    await expect.poll(() => postTexts(one), WAIT).toEqual(['From tab two']);
    await shot(one, '9-di-tab-workers');
    await context.close();
  });

  it('keeps an account in a data folder, with its own stores under minca-pod:', async () => {
    const context = await browser.newContext();
    // The picker needs a person; here it gives a folder of the origin's private file system,
    // a real FileSystemDirectoryHandle like the one the picker gives.
    await context.addInitScript(() => {
      (window as unknown as { showDirectoryPicker: unknown }).showDirectoryPicker = async () =>
        (await navigator.storage.getDirectory()).getDirectoryHandle('pod', { create: true });
    });
    const page = await context.newPage();
    await page.goto(stack.app.url);
    await page.getByLabel('Your name').fill('Cy');
    await page.getByRole('button', { name: 'Create account in a data folder…' }).click();
    await page.getByLabel('Space name').fill('Folder space');
    await page.getByRole('button', { name: 'Create space' }).click();
    await page.locator('main[data-rendered="true"]').waitFor(WAIT);
    await page.getByLabel('Write a post').fill('Kept in the folder');
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => postTexts(page), WAIT).toEqual(['Kept in the folder']);
    await page.reload();
    await page.locator('main[data-rendered="true"]').waitFor(WAIT);
    expect(await postTexts(page)).toEqual(['Kept in the folder']);
    const layout = await page.evaluate(async () => {
      const names: string[] = [];
      const walk = async (dir: FileSystemDirectoryHandle, path: string) => {
        for await (const [name, handle] of dir.entries()) {
          names.push(`${path}${name}`);
          if (handle.kind === 'directory')
            await walk(handle as FileSystemDirectoryHandle, `${path}${name}/`);
        }
      };
      const root = await navigator.storage.getDirectory();
      await walk(await root.getDirectoryHandle('pod'), '');
      const dbs = (await indexedDB.databases()).map((d) => d.name ?? '');
      return { names, dbs };
    });
    // The account lives in the folder (its registry and spaces); this device's own stores are
    // IndexedDB under minca-pod:, not minca:.
    expect(layout.names.length).toBeGreaterThan(0);
    expect(layout.dbs.some((d) => d.startsWith('minca-pod:accounts:'))).toBe(true);
    expect(layout.dbs.some((d) => d.startsWith('minca:accounts:'))).toBe(false);
    await shot(page, '8-cy-data-folder');
    await context.close();
  });

  it('two tabs of one person share one node and both update live', async () => {
    const a2 = await ada.newPage();
    await a2.goto(spaceUrl);
    await a2.locator('main[data-rendered="true"]').waitFor(WAIT);
    const node1 = await a.locator('body').getAttribute('data-node');
    const node2 = await a2.locator('body').getAttribute('data-node');
    expect(node1).toMatch(/^shared:/);
    expect(node2).toBe(node1);
    await a2.getByLabel('Write a post').fill('From the second tab');
    await a2.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => postTexts(a), WAIT).toContain('From the second tab');
    await a.getByLabel('Write a post').fill('From the first tab');
    await a.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => postTexts(a2), WAIT).toContain('From the first tab');
    await expect.poll(() => postTexts(b), WAIT).toContain('From the first tab');
    await shot(a2, '7-ada-second-tab');
    await a2.close();
  });
});
