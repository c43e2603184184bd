/**
 * The demo's service worker. It answers the page's requests for videos
 * (`media/<space>/<post>/<file id>` under its scope) from the node, so a video plays before its
 * file is whole: the browser asks by range (`Range: bytes=a-`), the node reads only the chunks
 * of that range, fetching them from peers in order of need, and the answer is a 206 whose body
 * comes one piece at a time as the browser reads it. Seeking makes the browser let go of one
 * request and ask another at the new place, so the node reads there next. Every other request
 * goes to the network as if this worker weren't here.
 *
 * It reads from the node of the page that asked, over a MessagePort that page gave (see
 * media-protocol.ts). A service worker can be stopped when idle and forgets its ports: it asks
 * the page again.
 */
import type { MediaAnswer, MediaAsk, MediaPath, PortMessage } from './media-protocol.js';

interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  clientId: string;
  respondWith(response: Promise<Response>): void;
}
interface Client {
  id: string;
  postMessage(message: PortMessage): void;
}
interface ClientMessageEvent extends ExtendableEvent {
  data: unknown;
  source: Client | null;
  ports: readonly MessagePort[];
}
interface ServiceWorkerScope {
  registration: { scope: string };
  skipWaiting(): Promise<void>;
  clients: {
    claim(): Promise<void>;
    get(id: string): Promise<Client | undefined>;
    matchAll(options: { type: 'window' }): Promise<Client[]>;
  };
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
  addEventListener(type: 'message', listener: (event: ClientMessageEvent) => void): void;
}

const sw = globalThis as unknown as ServiceWorkerScope;
const MEDIA: MediaPath = 'media/';
/** How long a page has to give a port when asked, ms. */
const PORT_WAIT_MS = 10_000;

/** One page's node, over the port it gave: reads opened and pulled one message at a time. */
class NodeLink {
  #next = 0;
  readonly #waiting = new Map<number, (answer: MediaAnswer) => void>();
  #closed = false;

  constructor(readonly port: MessagePort) {
    port.onmessage = ({ data }) => {
      const answer = data as MediaAnswer;
      const waiting = this.#waiting.get(answer?.id);
      if (!waiting) return;
      this.#waiting.delete(answer.id);
      waiting(answer);
    };
  }

  #ask(id: number, message: MediaAsk): Promise<MediaAnswer> {
    if (this.#closed)
      return Promise.resolve({
        id,
        error: { status: 503, message: 'the page let go of its node' },
      });
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.port.postMessage(message);
    });
  }

  open(space: string, post: string, file: string, range: string | null) {
    const id = this.#next++;
    return { id, head: this.#ask(id, { open: id, space, post, file, range }) };
  }

  pull(id: number): Promise<MediaAnswer> {
    return this.#ask(id, { pull: id });
  }

  cancel(id: number): void {
    this.#waiting.delete(id);
    if (!this.#closed) this.port.postMessage({ cancel: id } satisfies MediaAsk);
  }

  /** A newer port replaced this one: what waits on it fails, and the browser asks again. */
  close(): void {
    this.#closed = true;
    for (const [id, waiting] of this.#waiting)
      waiting({ id, error: { status: 503, message: 'the page changed its node' } });
    this.#waiting.clear();
    this.port.close();
  }
}

/** Per page (client id), the link to its node. */
const links = new Map<string, NodeLink>();
/** Pages asked for a port, and who waits for it. */
const asked = new Map<string, Promise<NodeLink | undefined>>();
const given = new Map<string, (link: NodeLink) => void>();

sw.addEventListener('install', (event) => event.waitUntil(sw.skipWaiting()));
// Pages open before this worker was installed play videos too, without a reload.
sw.addEventListener('activate', (event) => event.waitUntil(sw.clients.claim()));

sw.addEventListener('message', (event) => {
  const port = event.ports[0];
  const page = event.source;
  const what = (event.data as PortMessage | null)?.minca;
  if (what === 'claim') return event.waitUntil(sw.clients.claim());
  if (what !== 'media-port' || !port || !page) return;
  links.get(page.id)?.close();
  const link = new NodeLink(port);
  links.set(page.id, link);
  given.get(page.id)?.(link);
  event.waitUntil(forgetClosedPages());
});

async function forgetClosedPages(): Promise<void> {
  for (const [id, link] of links) {
    if (await sw.clients.get(id)) continue;
    link.close();
    links.delete(id);
  }
}

/** The link to the node of page `clientId` (or of any page, for an address opened on its own). */
async function linkFor(clientId: string): Promise<NodeLink | undefined> {
  const known = links.get(clientId);
  if (known) return known;
  const windows = clientId ? [] : await sw.clients.matchAll({ type: 'window' });
  const page = clientId
    ? await sw.clients.get(clientId)
    : (windows.find((c) => links.has(c.id)) ?? windows[0]);
  if (!page) return undefined;
  const link = links.get(page.id);
  if (link) return link;
  let waiting = asked.get(page.id);
  if (!waiting) {
    waiting = new Promise<NodeLink | undefined>((resolve) => {
      given.set(page.id, resolve);
      setTimeout(() => resolve(undefined), PORT_WAIT_MS);
    }).finally(() => {
      asked.delete(page.id);
      given.delete(page.id);
    });
    asked.set(page.id, waiting);
    page.postMessage({ minca: 'media-port?' });
  }
  return waiting;
}

const text = (status: number, message: string) =>
  new Response(message, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });

/** The body of read `id`: pulled from the node one piece at a time, as the browser reads. */
function body(link: NodeLink, id: number): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await link.pull(id);
        if ('piece' in next) controller.enqueue(next.piece);
        else if ('done' in next) controller.close();
        else controller.error(new Error('error' in next ? next.error.message : 'out of turn'));
      },
      cancel: () => link.cancel(id),
    },
    { highWaterMark: 1 },
  );
}

async function answer(request: Request, clientId: string, root: string): Promise<Response> {
  const parts = new URL(request.url).pathname.slice(new URL(root).pathname.length).split('/');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]{1,128}$/.test(p)))
    return text(404, 'not a media address');
  const [space, post, file] = parts as [string, string, string];
  const link = await linkFor(clientId);
  if (!link) return text(503, 'no page of this site has its node open');
  const { id, head: opened } = link.open(space, post, file, request.headers.get('range'));
  const first = await opened;
  if ('error' in first) return text(first.error.status, first.error.message);
  if (!('head' in first)) return text(502, 'the node answered out of turn');
  const { status, size, start, end, mime } = first.head;
  const headers = new Headers({
    'Accept-Ranges': 'bytes',
    'Content-Type': mime,
    'Cache-Control': 'no-store',
  });
  if (status === 416) {
    headers.set('Content-Range', `bytes */${size}`);
    return new Response(null, { status, headers });
  }
  headers.set('Content-Length', String(end - start));
  if (status === 206) headers.set('Content-Range', `bytes ${start}-${end - 1}/${size}`);
  if (end === start) {
    link.cancel(id);
    return new Response(null, { status, headers });
  }
  return new Response(body(link, id), { status, headers });
}

sw.addEventListener('fetch', (event) => {
  const root = new URL(MEDIA, sw.registration.scope).href;
  const { request } = event;
  if (request.method !== 'GET' || !request.url.startsWith(root)) return;
  event.respondWith(answer(request, event.clientId, root));
});
