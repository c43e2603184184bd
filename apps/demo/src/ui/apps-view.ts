/**
 * The apps connected to the account (spec 05 §18), on its spaces page: which app, where, for
 * which spaces, and "Disconnect", which has the root revoke the app's key. From then on what
 * that key signs doesn't stand anywhere the revocation reaches, and the spaces the account owns
 * change key, so the app can't read what is written after.
 */
import { type Account, disconnectedApp, getAccount } from '../accounts.js';
import { revoke, rootSigner } from '../device-keys.js';
import type { NodeClient } from '../node-client.js';
import type { SpaceView } from '../protocol.js';
import { confirmAction } from './confirm.js';
import { h } from './dom.js';

export function appsSection(
  account: Account,
  client: NodeClient,
  spaces: SpaceView[],
): HTMLElement | undefined {
  const apps = (account.apps ?? []).filter((a) => a.disconnected === undefined);
  if (apps.length === 0) return undefined;
  const names = new Map(spaces.map((s) => [s.id, s.name]));
  const status = h('p', { role: 'status', class: 'muted', id: 'apps-status' });
  const list = h(
    'ul',
    { class: 'plain people', id: 'apps' },
    ...apps.map((app) => {
      const button: HTMLButtonElement = h(
        'button',
        {
          type: 'button',
          class: 'danger quiet small remove',
          'aria-label': `Disconnect ${app.name} (${app.origin})`,
        },
        'Disconnect',
      );
      const item = h(
        'li',
        { class: 'person' },
        h(
          'span',
          {},
          h('strong', {}, app.name),
          ` · ${app.origin} · ${app.spaces.map((id) => names.get(id) ?? 'a space').join(', ')}`,
        ),
        button,
      );
      button.addEventListener('click', async () => {
        const yes = await confirmAction({
          title: `Disconnect ${app.name}?`,
          says: [
            `${app.name} (${app.origin}) stops writing for ${account.name}: what it writes from now on is not shown to anyone, and it can’t read what is written after this in your spaces.`,
            'What it wrote before stays. To use it again, connect it again.',
          ],
          action: `Disconnect ${app.name}`,
          opener: button,
        });
        if (!yes) return;
        button.disabled = true;
        try {
          const root = await rootSigner(account.id);
          if (!root) throw new TypeError(`${account.name}’s keys are not in this browser`);
          const at = Date.now();
          await client.call('revoke', (await revoke(root, app.writer, at)).bytes);
          await disconnectedApp(account.id, app.writer, at);
          Object.assign(account, await getAccount(account.id));
          item.remove();
          status.textContent = `${app.name} is disconnected.`;
        } catch (e) {
          status.textContent = (e as Error).message;
          button.disabled = false;
        }
      });
      return item;
    }),
  );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'apps-title' },
    h('h3', { id: 'apps-title' }, 'Connected apps'),
    list,
    status,
  );
}
