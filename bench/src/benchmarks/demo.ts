// The demo app in headless Chromium (Debian's, through playwright-core) with its local host:
// the time from A's post to B's render through the host (median of 20), beside the same post's
// render in A's own tab; and the first render of a space of 10,000 posts from IndexedDB,
// beside that of an empty space. Needs the demo built (`pnpm bench demo` builds it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createNode, keepConnected, type MincaNode, type WebSocketLike } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { chromiumLaunchOptions } from '@minca/test-chromium';
import { chromium, type Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { type Benchmark, median } from '../harness.js';

const DEMO = fileURLToPath(new URL('../../../apps/demo/dist/', import.meta.url));
const RUNS = 20;
const POSTS = Number(process.env.MINCA_BENCH_DEMO_POSTS ?? 10_000);
const WAIT = { timeout: 600_000 };

interface Running {
  port: number;
  url: string;
  close(): Promise<void>;
}
/** The demo's local host: the CLI's `minca host`, as a child process (apps/cli built). */
interface RunningHost extends Running {
  did: string;
  subscribe(did: string): Promise<void>;
}
type StartHost = (o: { dataDir: string }) => Promise<RunningHost>;
type ServeApp = (o: {
  root: string;
  host: () => RunningHost;
  invites: unknown;
}) => Promise<Running>;

async function account(page: Page, url: string, name: string) {
  await page.goto(url);
  await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: 'Create account', exact: true }).click();
}

/** A fresh invite from the page's dialog: its short link and the whole code. */
async function inviteFrom(page: Page): Promise<{ link: string; code: string }> {
  await page.getByRole('button', { name: 'Invite someone' }).click();
  const link = page.locator('#invite-link');
  await page.waitForFunction(
    () => (document.getElementById('invite-link') as HTMLInputElement | null)?.value,
    undefined,
    WAIT,
  );
  const out = {
    link: await link.inputValue(),
    code: await page.locator('#invite-code').inputValue(),
  };
  await page.keyboard.press('Escape');
  return out;
}

/** Posts `text` from the page; gives the wall time just before the submit, ms. */
const postFrom = (page: Page, text: string) =>
  page.evaluate((t) => {
    (document.getElementById('post-text') as HTMLTextAreaElement).value = t;
    const at = performance.timeOrigin + performance.now();
    (document.querySelector('form[aria-label="New post"]') as HTMLFormElement).requestSubmit();
    return at;
  }, text);

/** Resolves with the wall time at which a post with `text` is in the page's feed, ms. */
const renderedAt = (page: Page, text: string) =>
  page.evaluate(
    (t) =>
      new Promise<number>((resolve) => {
        const has = () =>
          Array.from(document.querySelectorAll('#feed .text')).some((el) => el.textContent === t);
        const observer = new MutationObserver(() => {
          if (!has()) return;
          observer.disconnect();
          resolve(performance.timeOrigin + performance.now());
        });
        observer.observe(document.getElementById('feed')!, { childList: true, subtree: true });
      }),
    text,
  );

/** ms from navigation to the first render of the space, from local data. */
async function firstRender(page: Page): Promise<number> {
  await page.reload();
  await page.locator('main[data-rendered="true"]').waitFor(WAIT);
  return page.evaluate(() => performance.getEntriesByName('minca:first-render')[0]!.startTime);
}

const bench: Benchmark = {
  name: 'demo',
  async run() {
    const { startHost } = (await import(pathToFileURL(join(DEMO, 'server/host.js')).href)) as {
      startHost: StartHost;
    };
    const { serveApp } = (await import(pathToFileURL(join(DEMO, 'server/serve-app.js')).href)) as {
      serveApp: ServeApp;
    };
    const { inviteStore } = (await import(pathToFileURL(join(DEMO, 'server/invites.js')).href)) as {
      inviteStore: (dir: string) => unknown;
    };
    const dataDir = mkdtempSync(join(tmpdir(), 'minca-bench-demo-'));
    const host = await startHost({ dataDir });
    const app = await serveApp({
      root: join(DEMO, 'app'),
      host: () => host,
      invites: inviteStore(join(dataDir, 'invites')),
    });
    const browser = await chromium.launch(chromiumLaunchOptions());
    let writer: MincaNode | undefined;
    let link: { close(): void } | undefined;
    try {
      const a = await (await browser.newContext()).newPage();
      const b = await (await browser.newContext()).newPage();
      await account(a, app.url, 'Ada');
      await a.getByLabel('Space name').fill('Bench');
      await a.getByRole('button', { name: 'Create space' }).click();
      await a.locator('main[data-rendered="true"]').waitFor(WAIT);
      // A short invite link, opened by B, who joins in one click.
      const invite = await inviteFrom(a);
      await b.goto(invite.link);
      await b.getByLabel('Your name').fill('Bo');
      await b.getByRole('button', { name: 'Join Bench' }).click();
      await b.locator('main[data-rendered="true"]').waitFor(WAIT);
      await b.locator('#peers .peer[data-level="true"]').waitFor(WAIT);

      // Post to render: A posts, B renders it through the host; A's own render beside it.
      const remote: number[] = [];
      const local: number[] = [];
      for (let i = -1; i < RUNS; i++) {
        const text = `post ${i}`;
        const [atB, atA, sent] = await Promise.all([
          renderedAt(b, text),
          renderedAt(a, text),
          postFrom(a, text),
        ]);
        if (i < 0) continue; // the warm-up
        remote.push(atB - sent);
        local.push(atA - sent);
      }

      // First render of 10,000 posts from IndexedDB, beside the space as it is now (21 posts).
      const small = median([await firstRender(b), await firstRender(b), await firstRender(b)]);
      const space = new URL(b.url()).hash.match(/s=([a-z2-7]+)/)![1]!;
      // A second invite, for a writer in Node: the whole code, as the dialog shows it.
      const second = await inviteFrom(a);
      writer = await createNode({ stores: memoryStores() });
      await writer.spaces.join(second.code);
      // The code carries the owner's sys.holder version: the writer names the space to the
      // host, which holds it without its key.
      // Connected while it writes: the posts go in many small syncs, as people post.
      link = keepConnected(
        () => new WebSocket(host.url) as unknown as WebSocketLike,
        (t) => {
          const peer = writer!.connect(t);
          // Why a connection ended, for a run that stalls.
          const closed = t.onClose;
          t.onClose = (reason) => {
            process.stderr.write(`writer's connection ended: ${peer.endReason ?? reason}\n`);
            closed?.(reason);
          };
        },
      );
      for (let i = 0; i < POSTS; i++)
        await writer.records.put(space, 'app.post', { text: `n${i}` });
      // Wait until B holds all of them: level with the host, which is level with the writer.
      const start = Date.now();
      const atHost = async () =>
        (await writer!.spaces.status(space)).peers.some((p) => p.did === host.did && p.level);
      while (!(await atHost())) {
        if (Date.now() - start > 600_000)
          throw new Error("the host was not level with the writer's posts in 10 minutes");
        await new Promise((r) => setTimeout(r, 200));
      }
      await b.locator('#peers .peer[data-level="true"]').waitFor(WAIT);
      const big = median([await firstRender(b), await firstRender(b), await firstRender(b)]);
      return [
        {
          name: "A's post to B's render, through the host",
          value: median(remote),
          unit: 'ms',
          note: `${(median(remote) / median(local)).toFixed(1)}× A's own render (${median(local).toFixed(0)} ms), median of ${RUNS}`,
        },
        {
          name: `first render of ${POSTS.toLocaleString('en-US')} posts from IndexedDB`,
          value: big,
          unit: 'ms',
          note: `${(big / small).toFixed(2)}× a space of ${RUNS + 1} posts (${small.toFixed(0)} ms), from navigation`,
        },
      ];
    } finally {
      link?.close();
      await writer?.close();
      await browser.close();
      await app.close();
      await host.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
export default bench;
