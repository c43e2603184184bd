/**
 * A video that plays before it is whole, in headless Chromium: Ada posts a 20 MiB MP4 (its
 * index first) from the composer; Bo, whose only peer is the host behind a proxy that holds
 * what it sends him to 1 MB/s, plays it, and it starts within 3 s (the stated bound,
 * from pressing play to the first `timeupdate`); then he seeks to its middle, and it plays from
 * there before the bytes in between could have come through his link. Pictures on his page
 * (the video's poster, a photo) show their ThumbHash placeholder before their file is here.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createNode, keepConnected, type MincaNode, type WebSocketLike } from '@minca/core';
import { memoryStores } from '@minca/memory';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { inviteStore } from '../server/invites.ts';
import { type AppServer, serveApp } from '../server/serve-app.ts';
import { ARTIFACTS, buildApp, HAS_CHROMIUM, launch, type Stack, startStack } from './browser.ts';
import { png } from './png.ts';
import { createAccount, joinAs, WAIT } from './steps.ts';
import { type ThrottleProxy, throttleProxy } from './throttle-proxy.ts';
import { HAS_FFMPEG, testVideo } from './video-file.ts';

const run = (HAS_CHROMIUM && HAS_FFMPEG) || process.env.CI === 'true' ? describe : describe.skip;
const MiB = 1024 * 1024;
const SIZE = 20 * MiB;
const SECONDS = 60;
/** Bo's peer sends him at most this, bytes a second. */
const RATE = 1_000_000;
/** The bound from the click to the video playing, ms. */
const START_WITHIN_MS = 3000;

interface Timing {
  clickedAt?: number;
  playingAt?: number;
}

/** What a page first showed of each picture: a video's poster, a photo's `src` and kind. */
type FirstSeen = Record<string, string>;

/** Records, in every document of `page`, the first poster and photo each post showed. */
async function recordFirstSeen(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: FirstSeen = {};
    (window as unknown as { firstSeen: FirstSeen }).firstSeen = seen;
    // Called before the page goes on, after each change: nothing shown is missed.
    new MutationObserver(() => {
      for (const v of Array.from(
        document.querySelectorAll<HTMLVideoElement>('article video.video'),
      ))
        seen[`poster:${v.closest('article')?.dataset.post}`] ??= v.getAttribute('poster') ?? '';
      for (const img of Array.from(
        document.querySelectorAll<HTMLImageElement>('article img.photo'),
      ))
        seen[`photo:${img.closest('article')?.dataset.post}`] ??=
          `${img.dataset.kind} ${img.getAttribute('src')}`;
    }).observe(document, { subtree: true, childList: true, attributes: true });
  });
}

const firstSeen = (page: Page) =>
  page.evaluate(() => (window as unknown as { firstSeen: FirstSeen }).firstSeen);

/** An invite made in Ada's dialog: the short link, and the whole code. */
async function invite(page: Page): Promise<{ link: string; code: string }> {
  await page.getByRole('button', { name: 'Invite someone' }).click();
  await expect.poll(() => page.locator('#invite-link').inputValue(), WAIT).toContain('#join=');
  const link = await page.locator('#invite-link').inputValue();
  const code = await page.locator('#invite-code').inputValue();
  await page.keyboard.press('Escape');
  return { link, code };
}

/** Screenshots go to test-results/ (not committed). */
const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `video-${name}.png`), fullPage: true });

const currentTime = (page: Page) =>
  page.locator('article video.video').evaluate((v: HTMLVideoElement) => v.currentTime);

run('a video from a peer limited to 1 MB/s, in Chromium', () => {
  let stack: Stack;
  let proxy: ThrottleProxy;
  let viewerApp: AppServer;
  let browser: Browser;
  let ada: Page;
  let bo: Page;
  let videoPath: string;
  let checker: MincaNode | undefined;
  let checkerLink: { close(): void } | undefined;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    videoPath = await testVideo(SECONDS, SIZE);
    const root = await buildApp();
    stack = await startStack(root);
    proxy = await throttleProxy(stack.host.port, RATE);
    // Bo's page is served with the proxy as its host; invites are the same store.
    viewerApp = await serveApp({
      root,
      host: () => ({
        port: proxy.port,
        did: stack.host.did,
        subscribe: (did) => stack.host.subscribe(did),
      }),
      invites: inviteStore(join(stack.dataDir, 'invites')),
    });
    browser = await launch();
    const page = async (who: string) => {
      const p = await (
        await browser.newContext({ viewport: { width: 900, height: 900 } })
      ).newPage();
      p.on('console', (m) => m.type() === 'error' && console.error(`${who}: ${m.text()}`));
      p.on('pageerror', (e) => console.error(`${who}: ${e.message}`));
      return p;
    };
    ada = await page('Ada');
    bo = await page('Bo');
    await recordFirstSeen(bo);
  }, 180_000);

  afterAll(async () => {
    checkerLink?.close();
    await checker?.close();
    await browser?.close();
    await viewerApp?.close();
    await proxy?.close();
    await stack?.close();
  });

  it('Ada posts a 20 MiB MP4: the post has a poster and plays from her device', async () => {
    await ada.goto(stack.app.url);
    await createAccount(ada, 'Ada');
    await ada.getByLabel('Space name').fill('Films');
    await ada.getByRole('button', { name: 'Create space' }).click();
    await ada.locator('main[data-rendered="true"]').waitFor(WAIT);
    await ada.getByLabel('Write a post').fill('A minute of noise');
    await ada.getByLabel('Add a photo or video').setInputFiles(videoPath);
    await ada.getByLabel(/^Chosen video/).waitFor(WAIT);
    await ada.getByRole('button', { name: 'Post', exact: true }).click();
    const video = ada.locator('article video.video');
    await video.waitFor(WAIT);
    // The poster is a frame of it, a small std.image added with it: here, so shown as a file.
    await expect.poll(() => video.getAttribute('poster'), WAIT).toMatch(/^blob:/);
    await expect.poll(() => video.getAttribute('src'), WAIT).toContain('/media/');
    const size = await video.evaluate(
      (v: HTMLVideoElement) =>
        new Promise<number[]>((resolve) => {
          const done = () => resolve([v.duration, v.videoWidth, v.videoHeight]);
          if (v.readyState >= 1) done();
          else v.addEventListener('loadedmetadata', done, { once: true });
        }),
    );
    expect(size[0]).toBeCloseTo(SECONDS, 0);
    expect(size.slice(1)).toEqual([640, 360]);
    await shot(ada, '1-ada-posted');
  });

  it('the host holds the file whole (a node in Node reads it from the host)', async () => {
    // The host fetches every file its spaces name; Bo's timing is of his link, not of that.
    const { code } = await invite(ada);
    checker = await createNode({ stores: memoryStores() });
    const { id: space } = await checker.spaces.join(code);
    const node = checker;
    checkerLink = keepConnected(
      () => new WebSocket(stack.host.url) as unknown as WebSocketLike,
      (t) => node.connect(t),
    );
    await expect
      .poll(async () => (await node.records.list(space, 'app.post')).length, WAIT)
      .toBe(1);
    const [post] = await node.records.list(space, 'app.post');
    const ref = (post!.body as { video: { file: Parameters<MincaNode['records']['readFile']>[1] } })
      .video.file;
    const bytes = await node.records.readFile(space, ref);
    expect(Buffer.from(bytes).equals(readFileSync(videoPath))).toBe(true);
    checkerLink.close();
  }, 90_000);

  it('Bo plays it within 3 s through his 1 MB/s link, and seeks to its middle', async () => {
    const { link } = await invite(ada);
    await bo.goto(new URL(new URL(link).hash, viewerApp.url).href);
    await joinAs(bo, 'Bo', 'Films');
    const video = bo.locator('article video.video');
    await video.waitFor(WAIT);
    await expect.poll(() => video.getAttribute('src'), WAIT).toContain('/media/');
    // The poster showed its placeholder from the record at once, then the picture once here.
    const post = await video.evaluate((v) => v.closest('article')!.dataset.post);
    expect((await firstSeen(bo))[`poster:${post}`]).toMatch(/^data:image\/png;base64,/);
    await expect.poll(() => video.getAttribute('poster'), WAIT).toMatch(/^blob:/);
    // Over the device's `ahead` limit (5 MiB): it is read as it plays, nothing of it before.
    expect(await video.getAttribute('preload')).toBe('none');
    expect(proxy.sentBack()).toBeLessThan(MiB);
    // Its length and size, from the record, before any of it is read.
    expect(await bo.locator('article .video-about').textContent()).toMatch(/^1:00 · 20\.\d MiB$/);
    await shot(bo, '2-bo-poster');

    const ranges: number[] = [];
    bo.on('request', (request) => {
      const range = /^bytes=(\d+)-/.exec(request.headers().range ?? '');
      if (request.url().includes('/media/') && range) ranges.push(Number(range[1]));
    });
    await video.evaluate((v: HTMLVideoElement) => {
      const timing: Timing = {};
      (window as unknown as { timing: Timing }).timing = timing;
      document.addEventListener('keydown', () => (timing.clickedAt ??= performance.now()), {
        capture: true,
      });
      v.addEventListener('timeupdate', () => {
        if (v.currentTime > 0) timing.playingAt ??= performance.now();
      });
    });
    // Play as a person at the keyboard does: the video's own controls take Space.
    await video.focus();
    await bo.keyboard.press('Space');
    const timing = (await bo
      .waitForFunction(
        () => {
          const t = (window as unknown as { timing: Timing }).timing;
          return t.playingAt !== undefined && t;
        },
        undefined,
        WAIT,
      )
      .then((h) => h.jsonValue())) as Required<Timing>;
    const startMs = timing.playingAt - timing.clickedAt;
    console.log(`video: from pressing play to playing, ${startMs.toFixed(0)} ms at 1 MB/s`);
    expect(startMs).toBeLessThanOrEqual(START_WITHIN_MS);
    const first = await currentTime(bo);
    await expect.poll(() => currentTime(bo), WAIT).toBeGreaterThan(first + 0.5);

    // A seek to the middle: the browser asks from there, and the node fetches those chunks
    // first. It plays from the middle before half the file could have come through the link.
    const middle = SECONDS / 2;
    const asked = ranges.length;
    await video.evaluate((v: HTMLVideoElement, t: number) => (v.currentTime = t), middle);
    await expect.poll(() => currentTime(bo), { timeout: 60_000 }).toBeGreaterThan(middle + 0.5);
    const through = proxy.sentBack();
    const at = await currentTime(bo);
    expect(at).toBeLessThan(middle + 10);
    await expect.poll(() => currentTime(bo), WAIT).toBeGreaterThan(at + 0.5);
    await shot(bo, '3-bo-middle');
    console.log(
      `video: playing from the middle with ${(through / MiB).toFixed(1)} MiB through the link`,
    );
    expect(ranges.slice(asked).some((start) => start > SIZE * 0.35 && start < SIZE * 0.65)).toBe(
      true,
    );
    expect(through).toBeLessThan(SIZE / 2);
  }, 120_000);

  it("a photo Ada posts shows on Bo's page as its placeholder first, then as the picture", async () => {
    await bo.locator('article video.video').evaluate((v: HTMLVideoElement) => v.pause());
    await ada.getByLabel('Write a post').fill('And a photo');
    await ada.getByLabel('Add a photo or video').setInputFiles({
      name: 'noise.png',
      mimeType: 'image/png',
      buffer: png(600, 400, [0, 0, 0], true),
    });
    await ada.getByRole('button', { name: 'Post', exact: true }).click();
    const photo = bo.locator('article', { hasText: 'And a photo' }).locator('img.photo');
    await photo.waitFor(WAIT);
    const post = await photo.evaluate((img) => img.closest('article')!.dataset.post);
    // Its file can't be here when the post first shows: the record came first.
    expect((await firstSeen(bo))[`photo:${post}`]).toMatch(/^placeholder data:image\/png;base64,/);
    await expect.poll(() => photo.getAttribute('data-kind'), WAIT).toBe('full');
    expect(
      await photo.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth)),
    ).toBe(600);
  }, 60_000);
});
