/**
 * The demo's page. The address says where you are: `#a=<account>&s=<space>`, or
 * `#join=<invite code>` from an invite link. Local data renders first; the host comes after.
 */
import { type Account, listAccounts } from './accounts.js';
import { loadLimits } from './file-limits.js';
import { hostConfig, NodeClient } from './node-client.js';
import type { SyncView } from './protocol.js';
import { h } from './ui/dom.js';
import { ensureFolder, renderAccounts, renderSpaces } from './ui/home-view.js';
import { limitsSection } from './ui/limits-view.js';
import { renderSpace, type SpaceViewHandle } from './ui/space-view.js';

const main = document.getElementById('main')!;
const network = document.getElementById('network')!;
const clients = new Map<string, NodeClient>();
let view: SpaceViewHandle | undefined;
let lastSync: SyncView | undefined;
/** The person chose to work offline (kept per tab). */
let workOffline = sessionStorage.getItem('minca-demo:offline') === '1';

const route = () => new URLSearchParams(location.hash.slice(1));

function client(account: Account): NodeClient {
  let c = clients.get(account.id);
  if (!c) {
    const forceTab = new URLSearchParams(location.search).has('tab-worker');
    c = new NodeClient(
      { account: account.id, host: undefined, limits: loadLimits(account.id) },
      forceTab,
    );
    clients.set(account.id, c);
    const opened = c;
    // The host's address comes after the node opened: nothing local waits on the network.
    void c.open().then(async () => {
      await opened.call('setOnline', isOnline());
      await opened.call('setHost', await hostConfig());
    });
  }
  return c;
}

const isOnline = () => navigator.onLine && !workOffline;

function showNetwork(): void {
  const online = isOnline();
  const connected = lastSync?.connected ?? false;
  network.dataset.state = online ? 'online' : 'offline';
  network.replaceChildren(
    online
      ? connected
        ? 'Online: connected to the host'
        : 'Online: connecting to the host…'
      : navigator.onLine
        ? 'Offline (by choice): posts wait here'
        : 'Offline: posts wait here',
    ' ',
    h(
      'button',
      {
        type: 'button',
        class: 'quiet',
        id: 'toggle-offline',
        'aria-pressed': String(workOffline),
        onclick: () => {
          workOffline = !workOffline;
          sessionStorage.setItem('minca-demo:offline', workOffline ? '1' : '0');
          networkChanged();
        },
      },
      'Work offline',
    ),
  );
}

function networkChanged(): void {
  showNetwork();
  for (const c of clients.values()) void c.call('setOnline', isOnline()).catch(() => undefined);
}

async function show(): Promise<void> {
  view?.close();
  view = undefined;
  const params = route();
  const accounts = await listAccounts();
  const account = accounts.find((a) => a.id === params.get('a'));
  const code = params.get('join');
  const invite = code ? { code, host: params.get('host') ?? undefined } : undefined;
  if (!account) {
    await renderAccounts(main, (a) => {
      // An invite link's parts stay in the address until the account is made.
      params.set('a', a.id);
      location.hash = String(params);
    });
    return;
  }
  if (account.storage === 'folder') await ensureFolder(main);
  const c = client(account);
  const opened = await c.open();
  document.body.dataset.node = `${c.mode}:${opened.instance}`;
  const space = params.get('s');
  if (!space) {
    await renderSpaces(main, account, c, (s) => (location.hash = `a=${account.id}&s=${s}`), invite);
    return;
  }
  view = renderSpace(main, c, space, (sync) => {
    lastSync = sync;
    showNetwork();
  });
  main.append(limitsSection(account.id, c));
  await view.rendered;
}

addEventListener('hashchange', () => void show().catch(report));
addEventListener('online', networkChanged);
addEventListener('offline', networkChanged);
showNetwork();
const report = (e: unknown) =>
  main.replaceChildren(h('p', { class: 'error', role: 'alert' }, (e as Error).message));
void show().catch(report);
