/**
 * Your name and avatar, as every space you are in shows them. The avatar is resized here
 * (`prepareAvatar`, at most 256 px) before it is added.
 */
import { prepareAvatar } from '@minca/std/browser';
import type { Account } from '../accounts.js';
import type { NodeClient } from '../node-client.js';
import { field, h } from './dom.js';

export function profileEditor(account: Account, client: NodeClient): HTMLElement {
  const [nameLabel, name] = field('profile-name', 'Your name', {
    required: true,
    maxlength: 80,
    value: account.name,
    autocomplete: 'name',
  });
  const avatar = h('input', { id: 'profile-avatar', type: 'file', accept: 'image/*' });
  const status = h('p', { role: 'status', class: 'muted' });
  return h(
    'details',
    { class: 'card', id: 'profile' },
    h('summary', {}, 'Your name and picture'),
    h(
      'form',
      {
        onsubmit: async (event: Event) => {
          event.preventDefault();
          try {
            const file = avatar.files?.[0];
            const image = file ? await prepareAvatar(file) : account.avatar;
            await client.call('setProfile', name.value, image);
            account.name = name.value.trim();
            if (image) account.avatar = image;
            status.textContent = 'Saved in every space you are in.';
          } catch (e) {
            status.textContent = (e as Error).message;
          }
        },
      },
      nameLabel,
      name,
      h('label', { for: 'profile-avatar' }, 'Picture (optional)'),
      avatar,
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save')),
      status,
    ),
  );
}
