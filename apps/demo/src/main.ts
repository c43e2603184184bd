/**
 * The demo's page. The address says where you are: `#a=<account>` (its spaces),
 * `#a=<account>&s=<space>` (a space), `#join=<token>` (an invite link), `#accounts`. An empty
 * address goes to the account last used here. Local data renders first; the host comes after.
 */
import { type Account, listAccounts } from './accounts.js';
import { forgetLimits, loadLimits } from './file-limits.js';
import { hostConfig, NodeClient } from './node-client.js';
import { renderConnect } from './ui/connect-view.js';
import { h } from './ui/dom.js';
import { ensureFolder } from './ui/folder-view.js';
import { renderJoin } from './ui/join-view.js';
import { limitsSection } from './ui/limits-view.js';
import { NetworkView } from './ui/network.js';
import { renderSpace, type SpaceViewHandle } from './ui/space-view.js';
import { renderSpaces } from './ui/spaces-view.js';
import { renderWelcome } from './ui/welcome-view.js';

const main = document.getElementById('main')!;
const home = document.getElementById('home-link') as HTMLAnchorElement;
const clients = new Map<string, NodeClient>();
let view: SpaceViewHandle | undefined;
const LAST_ACCOUNT = 'minca-demo:account';

const network = new NetworkView(document.getElementById('network')!, (online) => {
  for (const c of clients.values()) void c.call('setOnline', online).catch(() => undefined);
});

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
      await opened.call('setOnline', network.online);
      await opened.call('setHost', await hostConfig());
    });
  }
  return c;
}

const go = (hash: string) => {
  location.hash = hash;
};

/** Makes `account` the one the header's link and an empty address go to. */
function useAccount(account: Account): void {
  localStorage.setItem(LAST_ACCOUNT, account.id);
  home.href = `#a=${account.id}`;
}

async function openClient(account: Account): Promise<NodeClient> {
  const c = client(account);
  const opened = await c.open();
  document.body.dataset.node = `${c.mode}:${opened.instance}`;
  return c;
}

async function show(): Promise<void> {
  view?.close();
  view = undefined;
  network.space(undefined, false);
  const params = new URLSearchParams(location.hash.slice(1));
  const accounts = await listAccounts();
  // An app on another origin asks to connect (it opened this window).
  if (params.has('connect')) {
    await renderConnect(main, { accounts, client: openClient });
    return;
  }
  const token = params.get('join');
  if (token) {
    await renderJoin(main, token, {
      holding: async (invite) => {
        const out: Account[] = [];
        for (const a of accounts) {
          const spaces = await (await openClient(a)).call('spaces');
          if (spaces.some((s) => s.id === invite.space.id)) out.push(a);
        }
        return out;
      },
      join: async (account, invite) => {
        useAccount(account);
        const space = await (await openClient(account)).call('join', invite.code);
        // The invite link is spent: the space's own address replaces it in the history.
        location.replace(`#a=${account.id}&s=${space.id}`);
      },
    });
    return;
  }
  const remembered = accounts.find((a) => a.id === localStorage.getItem(LAST_ACCOUNT));
  const account = accounts.find((a) => a.id === params.get('a'));
  if (!account) {
    // An empty address goes to the account last used; #accounts always to the picker.
    if (remembered && !params.has('accounts') && !params.has('a')) {
      location.replace(`#a=${remembered.id}`);
      return;
    }
    home.href = remembered ? `#a=${remembered.id}` : '#home';
    await renderWelcome(main, (a) => {
      useAccount(a);
      go(`a=${a.id}`);
    });
    return;
  }
  useAccount(account);
  if (account.storage === 'folder') await ensureFolder(main);
  const c = await openClient(account);
  const space = params.get('s');
  if (!space) {
    await renderSpaces(main, account, c, go, () => {
      // Nothing of the account is left here: its node is closed, its data and keys deleted.
      clients.delete(account.id);
      if (localStorage.getItem(LAST_ACCOUNT) === account.id) localStorage.removeItem(LAST_ACCOUNT);
      forgetLimits(account.id);
      location.replace('#accounts');
    });
    return;
  }
  view = renderSpace(main, c, account.id, space, (sync) => network.space(sync, true), [
    limitsSection(account.id, c),
  ]);
  network.space(undefined, true);
  await view.rendered;
  main.querySelector<HTMLElement>('#space-title')?.focus();
}

// The skip link moves focus to the content without changing the address (which routes).
document.getElementById('skip-link')!.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});
addEventListener('hashchange', () => void show().catch(report));
const report = (e: unknown) =>
  main.replaceChildren(h('p', { class: 'error', role: 'alert' }, (e as Error).message));
void show().catch(report);
