/** An account's spaces: open one, make one, or join with an invite link. */
import { type Account, listAccounts } from '../accounts.js';
import { linkToken } from '../invite-link.js';
import type { NodeClient } from '../node-client.js';
import { appsSection } from './apps-view.js';
import { field, h, heading } from './dom.js';
import { forgetSection } from './forget-view.js';
import { profileEditor } from './profile-view.js';

export async function renderSpaces(
  main: HTMLElement,
  account: Account,
  client: NodeClient,
  go: (hash: string) => void,
  forgotten: () => void,
) {
  const error = h('p', { class: 'error', role: 'alert' });
  const fail = (e: unknown) => (error.textContent = (e as Error).message);
  const [nameLabel, nameInput] = field('space-name', 'Space name', {
    required: true,
    maxlength: 80,
  });
  const [codeLabel, codeInput] = field('invite-code', 'Invite link', { required: true });
  const spaces = await client.call('spaces');
  const others = (await listAccounts()).length > 1;
  const title = heading('Your spaces', 'page-title');
  main.replaceChildren(
    h(
      'div',
      { class: 'narrow' },
      h('p', { class: 'eyebrow' }, `Hello, ${account.name}`),
      title,
      spaces.length
        ? h(
            'ul',
            { class: 'plain choices', id: 'spaces' },
            ...spaces.map((s) =>
              h(
                'li',
                {},
                h(
                  'a',
                  { href: `#a=${account.id}&s=${s.id}`, class: 'choice' },
                  h('span', {}, s.name),
                  s.owner === account.did ? h('span', { class: 'tag' }, 'yours') : undefined,
                ),
              ),
            ),
          )
        : h('p', { class: 'muted', id: 'spaces' }, 'None yet: make one, or open an invite link.'),
      h(
        'form',
        {
          class: 'card',
          'aria-labelledby': 'new-space',
          onsubmit: async (event: Event) => {
            event.preventDefault();
            await client
              .call('createSpace', nameInput.value)
              .then((s) => go(`a=${account.id}&s=${s.id}`), fail);
          },
        },
        h('h3', { id: 'new-space' }, 'New space'),
        nameLabel,
        nameInput,
        h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create space')),
      ),
      h(
        'details',
        { class: 'card' },
        h('summary', {}, 'Join with an invite link'),
        h(
          'form',
          {
            onsubmit: (event: Event) => {
              event.preventDefault();
              const token = linkToken(codeInput.value);
              if (token) return go(`join=${token}`);
              // A whole invite code, as the CLI prints it.
              void client
                .call('join', codeInput.value)
                .then((s) => go(`a=${account.id}&s=${s.id}`), fail);
            },
          },
          codeLabel,
          codeInput,
          h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Join')),
        ),
      ),
      profileEditor(account, client),
      appsSection(account, client, spaces),
      forgetSection(account, client, forgotten),
      h(
        'p',
        {},
        h('a', { href: '#accounts' }, others ? 'Switch or add an account' : 'Add an account'),
      ),
      error,
    ),
  );
  title.focus();
}
