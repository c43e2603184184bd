/**
 * Notes: a small app on an origin of its own that uses a minca account it doesn't hold. It
 * asks the account home (the demo) to connect, gets its own writer key certified for the
 * spaces the person chose, and then reads and writes posts there (`app.post { text }`, as the
 * demo shows them), syncing through the same host. `/config.json` from its server says where
 * the home and the host are.
 */
import { keepConnected, type MincaNode, type WebSocketLike } from '@minca/core';
import { accountOf, listProfiles, writerAccounts } from '@minca/std';
import { type AppNode, keepConnection, openRemembered } from './app-node.js';
import { connectToHome } from './home-link.js';

interface Config {
  /** The account home's address. */
  home: string;
  host?: { sync: string; did: string; subscribe: string };
}

const POSTS = 'app.post';
const ABOUT = 'app.space';
const main = document.getElementById('main')!;
const state = document.getElementById('state')!;

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string | undefined>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  for (const child of children) if (child !== undefined) el.append(child);
  return el;
}

const config = (await (await fetch('/config.json')).json()) as Config;

function showConnect(error?: string) {
  const button = h('button', { type: 'button', id: 'connect' }, 'Connect your minca account');
  const status = h('p', { role: 'status', id: 'connect-status' }, error ?? '');
  button.addEventListener('click', async () => {
    button.disabled = true;
    status.textContent = `Waiting for your account home at ${new URL(config.home).host}…`;
    try {
      const connection = await connectToHome(config.home, 'Notes');
      status.textContent = 'Allowed: getting your spaces…';
      const app = await keepConnection(connection);
      connection.done();
      await showApp(app);
    } catch (e) {
      status.textContent = (e as Error).message;
      button.disabled = false;
    }
  });
  main.replaceChildren(
    h(
      'div',
      { class: 'narrow' },
      h('h1', { id: 'title', tabindex: '-1' }, 'Notes for your spaces'),
      h(
        'p',
        {},
        'Notes reads and writes posts in the minca spaces you choose. Your account stays in your account home: Notes gets a key of its own, for those spaces only.',
      ),
      button,
      status,
    ),
  );
}

/** Syncs with the host, once it lets this account keep spaces there. */
function connectHost(node: MincaNode, account: string) {
  const host = config.host;
  if (!host) return;
  void fetch(host.subscribe, { method: 'POST', body: account })
    .catch(() => undefined)
    .then(() => {
      keepConnected(
        () => new WebSocket(host.sync) as unknown as WebSocketLike,
        (transport) => {
          node.connect(transport);
        },
        { maxDelayMs: 5_000 },
      );
    });
}

async function spaceName(node: MincaNode, id: string, fallback: string) {
  const about = await node.records.get(id, ABOUT, 'about').catch(() => undefined);
  const name = (about?.body as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' && name.trim() ? name.trim().slice(0, 80) : fallback;
}

async function showApp(app: AppNode) {
  const { node } = app;
  connectHost(node, app.account);
  let current = app.spaces[0]?.id;
  const list = h('ul', { class: 'spaces', id: 'spaces', 'aria-label': 'Your spaces here' });
  const feed = h('ol', { class: 'feed', id: 'feed', 'aria-label': 'Posts' });
  const text = h('textarea', { id: 'note', rows: '3', 'aria-label': 'Write a note' });
  const post = h('button', { type: 'submit' }, 'Post');
  const error = h('p', { role: 'alert', class: 'error', id: 'error' });
  const form = h('form', { class: 'composer' }, text, post);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!current || !text.value.trim()) return;
    error.textContent = '';
    try {
      await node.records.put(current, POSTS, { text: text.value.trim() });
      text.value = '';
      await render();
    } catch (e) {
      error.textContent = (e as Error).message;
    }
  });
  const heading = h('h1', { id: 'title', tabindex: '-1' }, 'Notes');
  main.replaceChildren(h('div', { class: 'narrow' }, heading, list, form, error, feed));

  const render = async () => {
    const names = await Promise.all(
      app.spaces.map(async (s) => ({ ...s, name: await spaceName(node, s.id, s.name) })),
    );
    list.replaceChildren(
      ...names.map((s) => {
        const button = h('button', { type: 'button', class: 'space' }, s.name);
        button.setAttribute('aria-pressed', String(s.id === current));
        button.addEventListener('click', () => {
          current = s.id;
          void render();
        });
        return h('li', {}, button);
      }),
    );
    if (!current) return;
    heading.textContent = names.find((s) => s.id === current)?.name ?? 'Notes';
    const [posts, people, writers] = await Promise.all([
      node.records.list(current, POSTS, { order: 'newest', limit: 30 }),
      listProfiles(node, current),
      writerAccounts(node, current),
    ]);
    feed.replaceChildren(
      ...posts.flatMap((p) => {
        const body = p.body as { text?: unknown } | null;
        if (typeof body?.text !== 'string' || !body.text.trim()) return [];
        const who = people.get(accountOf(writers, p.author))?.name ?? 'Someone';
        return [
          h(
            'li',
            { class: 'post' },
            h('span', { class: 'author' }, who),
            h('p', { class: 'text' }, body.text.slice(0, 10_000)),
          ),
        ];
      }),
    );
    main.dataset.rendered = 'true';
  };
  for (const { id } of app.spaces) await node.records.subscribe(id, () => void render());
  setInterval(() => {
    const host = config.host?.did;
    void Promise.all(app.spaces.map((s) => node.spaces.status(s.id))).then((all) => {
      const level = all.every((s) => s.peers.some((p) => p.did === host && p.level));
      state.textContent = level ? 'Up to date with the host' : 'Syncing…';
    });
  }, 500);
  await render();
  heading.focus();
}

const app = await openRemembered().catch(() => undefined);
if (app) await showApp(app);
else showConnect();
