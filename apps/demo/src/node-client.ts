/**
 * A tab's handle on its account's node. With SharedWorker, every tab of the site talks to one
 * node in one worker. Without it, each tab has a worker of its own, running only while the tab
 * is in view (one node writes the stores at a time), and tabs tell each other through a
 * BroadcastChannel named `minca-node:<root DID>:<space id>`.
 */
import type {
  AnswerMessage,
  EventMessage,
  HostConfig,
  Method,
  NodeApi,
  Opened,
  OpenRequest,
} from './protocol.js';

type Listener = (event: EventMessage) => void;
type Args<M extends Method> = Parameters<NodeApi[M]>;
type Result<M extends Method> = Awaited<ReturnType<NodeApi[M]>>;

interface PortLike {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

/** An error the node reported, with its `MincaError` code. */
export class NodeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const channelName = (did: string, space: string) => `minca-node:${did}:${space}`;

export class NodeClient {
  readonly mode: 'shared' | 'tab';
  readonly #listeners = new Set<Listener>();
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  #next = 0;
  #port: PortLike | undefined;
  #worker: Worker | undefined;
  /** Tab mode: calls wait here while the tab is out of view and its node stopped. */
  #ready: Promise<void> = Promise.resolve();
  #readyNow: (() => void) | undefined;
  readonly #channels = new Map<string, BroadcastChannel>();
  did: string | undefined;
  opened: Opened | undefined;

  constructor(
    private readonly request: OpenRequest,
    forceTabWorker = false,
  ) {
    this.mode = 'SharedWorker' in globalThis && !forceTabWorker ? 'shared' : 'tab';
    if (this.mode === 'shared') {
      const worker = new SharedWorker(new URL('./worker/shared-worker.ts', import.meta.url), {
        type: 'module',
        name: `minca-node:${request.account}`,
      });
      this.#attach(worker.port);
      worker.port.start();
      addEventListener('pagehide', () => worker.port.postMessage({ bye: true }));
    } else {
      this.#followVisibility();
    }
  }

  #attach(port: PortLike): void {
    this.#port = port;
    port.onmessage = ({ data }) => {
      if ('event' in data) return this.#event(data as EventMessage);
      const answer = data as AnswerMessage;
      const pending = this.#pending.get(answer.answer);
      if (!pending) return;
      this.#pending.delete(answer.answer);
      if ('error' in answer) pending.reject(new NodeError(answer.error.code, answer.error.message));
      else pending.resolve(answer.value);
    };
  }

  #event(event: EventMessage): void {
    for (const listener of this.#listeners) listener(event);
    if (this.mode === 'tab' && event.event === 'changed' && this.did) {
      this.#channel(event.space).postMessage({ changed: event.collections });
    }
  }

  /** Tab mode: the node runs while the tab is visible, and stops when it is hidden. */
  #followVisibility(): void {
    const start = () => {
      if (this.#worker) return;
      this.#worker = new Worker(new URL('./worker/tab-worker.ts', import.meta.url), {
        type: 'module',
      });
      this.#attach(this.#worker);
      const opened = this.#send('open', [this.request]) as Promise<Opened>;
      void opened.then((o) => {
        this.did = o.did;
        this.opened = o;
        this.#readyNow?.();
        for (const space of this.#channels.keys()) this.#tellTabs(space, { take: true });
      });
    };
    const stop = () => {
      if (!this.#worker) return;
      this.#worker.terminate();
      this.#worker = undefined;
      this.#port = undefined;
      for (const { reject } of this.#pending.values())
        reject(new NodeError('closed', 'another tab runs the node now'));
      this.#pending.clear();
      this.#ready = new Promise((resolve) => (this.#readyNow = resolve));
    };
    document.addEventListener('visibilitychange', () =>
      document.visibilityState === 'visible' ? start() : stop(),
    );
    // Of two windows in view, the one the person turns to runs the node.
    addEventListener('focus', start);
    this.#ready = new Promise((resolve) => (this.#readyNow = resolve));
    this.#stopOnTake = stop;
    if (document.visibilityState === 'visible') start();
  }

  #stopOnTake: (() => void) | undefined;

  #tellTabs(space: string, message: unknown): void {
    this.#channel(space).postMessage(message);
  }

  #channel(space: string): BroadcastChannel {
    let channel = this.#channels.get(space);
    if (!channel) {
      channel = new BroadcastChannel(channelName(this.did ?? this.request.account, space));
      channel.onmessage = ({ data }) => {
        if (data?.take) this.#stopOnTake?.();
        if (Array.isArray(data?.changed)) {
          for (const listener of this.#listeners)
            listener({ event: 'changed', space, collections: data.changed });
        }
      };
      this.#channels.set(space, channel);
    }
    return channel;
  }

  /** Tab mode: hear other tabs about `space` (a shared worker tells every tab itself). */
  follow(space: string): void {
    if (this.mode !== 'tab' || !this.did) return;
    const known = this.#channels.has(space);
    this.#channel(space);
    // This tab runs the node now: any other tab of the space stops its own.
    if (!known && this.#worker) this.#tellTabs(space, { take: true });
  }

  #send(method: Method, args: unknown[], transfer: Transferable[] = []): Promise<unknown> {
    const call = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(call, { resolve, reject });
      (this.#port as MessagePort).postMessage({ call, method, args }, transfer);
    });
  }

  /** Hands `port` to the node, which syncs `spaces` with the app at its other end. */
  async connectApp(port: MessagePort, spaces: string[]): Promise<void> {
    await this.#ready;
    await this.#send('connectApp', [port, spaces], [port]);
  }

  async call<M extends Method>(method: M, ...args: Args<M>): Promise<Result<M>> {
    // Kept, so a tab's worker started again opens with them.
    if (method === 'setHost') this.request.host = args[0] as OpenRequest['host'];
    if (method === 'setOnline') this.request.online = args[0] as boolean;
    if (method === 'setFileLimits') this.request.limits = args[0] as OpenRequest['limits'];
    await this.#ready;
    return (await this.#send(method, args)) as Result<M>;
  }

  /** Opens the node (shared mode; tab mode opens it each time the tab comes into view). */
  async open(): Promise<Opened> {
    if (this.mode === 'tab') {
      await this.#ready;
      return this.opened!;
    }
    const opened = (await this.#send('open', [this.request])) as Opened;
    this.did = opened.did;
    this.opened = opened;
    return opened;
  }

  /**
   * Hands `port` to the node's worker, which answers the service worker's media reads on it
   * (media-protocol.ts). In tab mode it goes to the worker running now.
   */
  async connectMedia(port: MessagePort): Promise<void> {
    await this.#ready;
    this.#port!.postMessage({ media: true }, [port]);
  }

  on(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** The host's address, from the server that served the page; none when it has no host. */
export async function hostConfig(): Promise<HostConfig | undefined> {
  try {
    const answer = await fetch('/config.json');
    if (!answer.ok) return undefined;
    const config = (await answer.json()) as { host?: HostConfig };
    return config.host;
  } catch {
    return undefined;
  }
}
