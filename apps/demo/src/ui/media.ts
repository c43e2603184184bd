/**
 * The page's side of playing videos: it registers the service worker (media-sw.ts), and gives
 * it a port to the node of the account this page shows (through the node's worker) when it
 * asks for one, when the account changes, and when a tab's own worker starts again. Videos
 * play from `media/<space>/<post>/<file id>`, which only the service worker answers.
 */
import type { PortMessage } from '../media-protocol.js';
import type { NodeClient } from '../node-client.js';

/** How long a first visit waits for the service worker to take the page, ms. */
const TAKE_MS = 10_000;

let client: NodeClient | undefined;
let started: Promise<boolean> | undefined;

/** A new port to `client`'s node, for the service worker `to`. */
function give(to: ServiceWorker | null | undefined): void {
  if (!to || !client) return;
  const channel = new MessageChannel();
  void client.connectMedia(channel.port1);
  to.postMessage({ minca: 'media-port' } satisfies PortMessage, [channel.port2]);
}

async function start(): Promise<boolean> {
  const container = navigator.serviceWorker;
  if (!container) return false;
  container.addEventListener('message', ({ data, source }) => {
    if ((data as PortMessage | null)?.minca === 'media-port?') give(source as ServiceWorker);
  });
  container.startMessages();
  // A tab running its own worker gets a new one each time it comes into view.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && client?.mode === 'tab')
      give(container.controller);
  });
  try {
    const registration = await container.register(new URL('media-sw.js', document.baseURI), {
      scope: './',
    });
    await container.ready;
    if (!container.controller) {
      // A first visit, or a reload that skipped the service worker: it takes the page now.
      const taken = new Promise<void>((resolve) =>
        container.addEventListener('controllerchange', () => resolve(), { once: true }),
      );
      registration.active?.postMessage({ minca: 'claim' } satisfies PortMessage);
      await Promise.race([taken, new Promise((resolve) => setTimeout(resolve, TAKE_MS))]);
    }
    return Boolean(container.controller);
  } catch {
    return false;
  }
}

/**
 * Plays this page's videos from `node`'s account. Resolves true once the service worker
 * answers the page's media requests, false where there is none (the page says so).
 */
export function useMedia(node: NodeClient): Promise<boolean> {
  const changed = client !== node;
  client = node;
  started ??= start();
  if (changed) void started.then((ok) => ok && give(navigator.serviceWorker.controller));
  return started;
}

/** Where the video `file` of post `post` plays from. */
export const videoUrl = (space: string, post: string, file: string) =>
  new URL(`media/${space}/${post}/${file}`, document.baseURI).href;
