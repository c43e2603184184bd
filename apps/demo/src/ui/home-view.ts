/** The start: pick or create an account, then pick, create or join a space. */
import { type Account, createAccount, listAccounts } from '../accounts.js';
import type { NodeClient } from '../node-client.js';
import { field, h } from './dom.js';

export async function renderAccounts(main: HTMLElement, go: (account: Account) => void) {
  const accounts = await listAccounts();
  const error = h('p', { class: 'error', role: 'alert' });
  const [label, input] = field('account-name', 'Your name', {
    required: true,
    autocomplete: 'name',
  });
  const form = h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'new-account',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          go(await createAccount(input.value));
        } catch (e) {
          error.textContent = (e as Error).message;
        }
      },
    },
    h('h2', { id: 'new-account' }, 'Create an account'),
    h('p', {}, 'Its key stays in this browser.'),
    label,
    input,
    h('button', { type: 'submit' }, 'Create account'),
    error,
  );
  const list = accounts.length
    ? h(
        'section',
        { 'aria-labelledby': 'accounts' },
        h('h2', { id: 'accounts' }, 'Accounts in this browser'),
        h(
          'ul',
          { class: 'plain' },
          ...accounts.map((a) =>
            h('li', {}, h('button', { class: 'quiet', onclick: () => go(a) }, a.name)),
          ),
        ),
      )
    : undefined;
  main.replaceChildren(...[list, form].filter((x) => x !== undefined));
  input.focus();
}

export async function renderSpaces(
  main: HTMLElement,
  account: Account,
  client: NodeClient,
  open: (space: string) => void,
  invite: { code: string; host: string | undefined } | undefined,
) {
  const error = h('p', { class: 'error', role: 'alert' });
  const fail = (e: unknown) => (error.textContent = (e as Error).message);
  const [nameLabel, nameInput] = field('space-name', 'Name', { required: true });
  const [codeLabel, codeInput] = field('invite-code', 'Invite code or link', { required: true });
  // A pasted link carries the host's grant too; a bare code doesn't.
  let hostPart = invite?.host;
  if (invite) codeInput.value = invite.code;
  const spaces = await client.call('spaces');
  main.replaceChildren(
    h('h2', {}, `Hello, ${account.name}`),
    h(
      'section',
      { 'aria-labelledby': 'spaces' },
      h('h2', { id: 'spaces' }, 'Your spaces'),
      spaces.length
        ? h(
            'ul',
            { class: 'plain' },
            ...spaces.map((s) =>
              h('li', {}, h('button', { class: 'quiet', onclick: () => open(s.id) }, s.name)),
            ),
          )
        : h('p', {}, 'None yet.'),
    ),
    h(
      'div',
      { class: 'row' },
      h(
        'form',
        {
          class: 'card',
          onsubmit: async (event: Event) => {
            event.preventDefault();
            await client.call('createSpace', nameInput.value).then((s) => open(s.id), fail);
          },
        },
        h('h2', {}, 'New space'),
        nameLabel,
        nameInput,
        h('button', { type: 'submit' }, 'Create space'),
      ),
      h(
        'form',
        {
          class: 'card',
          onsubmit: async (event: Event) => {
            event.preventDefault();
            let code = codeInput.value.trim();
            if (code.includes('#')) {
              const params = new URLSearchParams(code.slice(code.indexOf('#') + 1));
              code = params.get('join') ?? '';
              hostPart = params.get('host') ?? undefined;
            }
            await client.call('join', code, hostPart).then((s) => open(s.id), fail);
          },
        },
        h('h2', {}, 'Join a space'),
        codeLabel,
        codeInput,
        h('button', { type: 'submit' }, 'Join'),
      ),
    ),
    error,
  );
  (invite ? codeInput : nameInput).focus();
}
