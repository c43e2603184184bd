/** The start: pick or create an account, then pick, create or join a space. */

import {
  allowDataFolder,
  hasFolderPicker,
  pickDataFolder,
  rememberedDataFolder,
} from '@minca/folder';
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
            h(
              'li',
              {},
              h('button', { class: 'quiet', onclick: () => go(a) }, a.name),
              a.storage === 'folder' ? ' (in a data folder)' : '',
            ),
          ),
        ),
      )
    : undefined;
  main.replaceChildren(...[list, form].filter((x) => x !== undefined));
  input.focus();
}

/**
 * A data folder account on a later visit: the folder's permission is asked for again only from
 * a click. Resolves once the folder may be used.
 */
export async function ensureFolder(main: HTMLElement): Promise<void> {
  const remembered = await rememberedDataFolder();
  if (remembered?.permission === 'granted') return;
  const error = h('p', { class: 'error', role: 'alert' });
  await new Promise<void>((resolve) => {
    const button = h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          try {
            if (remembered ? await allowDataFolder(remembered.handle) : await pickDataFolder())
              resolve();
            else error.textContent = 'The folder was not allowed.';
          } catch (e) {
            error.textContent = (e as Error).message;
          }
        },
      },
      remembered ? 'Allow the data folder' : 'Pick the data folder',
    );
    main.replaceChildren(
      h(
        'section',
        {},
        h('h2', {}, 'Your data folder'),
        h('p', {}, 'This account keeps its data in a folder. The browser asks before using it.'),
        button,
        error,
      ),
    );
    button.focus();
  });
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
  // Older links carried the reader host's grant as `host`: still parsed, no longer needed.
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
