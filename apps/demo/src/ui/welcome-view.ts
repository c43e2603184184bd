/** The start: sign up with a name (the account's key stays in this browser), or pick an account. */
import { hasFolderPicker, pickDataFolder } from '@minca/folder';
import { type Account, createAccount, listAccounts } from '../accounts.js';
import { field, h, heading, initials } from './dom.js';

export async function renderWelcome(main: HTMLElement, go: (account: Account) => void) {
  const accounts = await listAccounts();
  const error = h('p', { class: 'error', role: 'alert' });
  const [label, input] = field('account-name', 'Your name', {
    required: true,
    autocomplete: 'name',
    maxlength: 80,
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
    h('h3', { id: 'new-account' }, accounts.length ? 'A new account' : 'Create an account'),
    h(
      'p',
      { class: 'muted' },
      'Your name is what the people in your spaces see. Your key stays in this browser.',
    ),
    label,
    input,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Create account'),
      // Where the browser can pick a folder: the whole account in it, to copy or sync elsewhere.
      hasFolderPicker() &&
        h(
          'button',
          {
            type: 'button',
            class: 'quiet',
            onclick: async () => {
              try {
                if (!input.value.trim()) throw new TypeError('an account needs a name');
                await pickDataFolder();
                go(await createAccount(input.value, 'folder'));
              } catch (e) {
                error.textContent = (e as Error).message;
              }
            },
          },
          'Create account in a data folder…',
        ),
    ),
    error,
  );
  const list = accounts.length
    ? h(
        'section',
        { class: 'card', 'aria-labelledby': 'accounts' },
        h('h3', { id: 'accounts' }, 'Accounts in this browser'),
        h(
          'ul',
          { class: 'plain choices' },
          ...accounts.map((a) =>
            h(
              'li',
              {},
              h(
                'a',
                { href: `#a=${a.id}`, class: 'choice' },
                initials(a.name, a.did),
                h('span', {}, a.name),
                a.storage === 'folder' ? h('span', { class: 'tag' }, 'data folder') : undefined,
              ),
            ),
          ),
        ),
      )
    : undefined;
  const title = heading(accounts.length ? 'Who is this?' : 'Welcome to minca', 'page-title');
  main.replaceChildren(
    h(
      'div',
      { class: 'narrow' },
      title,
      h(
        'p',
        { class: 'lede' },
        'Posts and photos with the people you choose. Everything is kept in this browser, works offline, and syncs through a host that cannot read it.',
      ),
      list,
      form,
    ),
  );
  title.focus();
}
