/**
 * "Forget this browser's copy": for a person leaving a shared or borrowed computer. Asked
 * first, with what goes and what stays; then the node deletes the account's `minca:`
 * databases and its keys (src/worker/forget.ts) and the page goes back to the start.
 */
import type { Account } from '../accounts.js';
import type { NodeClient } from '../node-client.js';
import { confirmAction } from './confirm.js';
import { h } from './dom.js';

export function forgetSection(
  account: Account,
  client: NodeClient,
  forgotten: () => void,
): HTMLElement {
  const status = h('p', { role: 'status', id: 'forget-status', class: 'muted' });
  const button: HTMLButtonElement = h(
    'button',
    { type: 'button', class: 'danger quiet', id: 'forget' },
    'Forget this browser’s copy…',
  );
  button.addEventListener('click', async () => {
    const folder = account.storage === 'folder';
    const yes = await confirmAction({
      title: `Forget ${account.name} in this browser?`,
      says: [
        `This deletes ${account.name}’s spaces, posts, photos and keys from this browser. The people in your spaces and the host keep what they have.`,
        folder
          ? 'Your data folder stays as it is, and so does what this browser keeps about it.'
          : 'Without the keys, this browser can’t be you again: only another device or app that has your account can.',
      ],
      action: 'Forget this browser’s copy',
      opener: button,
    });
    if (!yes) return;
    button.disabled = true;
    status.textContent = 'Forgetting…';
    try {
      await client.call('forget');
      forgotten();
    } catch (e) {
      status.textContent = (e as Error).message;
      button.disabled = false;
    }
  });
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'this-browser' },
    h('h3', { id: 'this-browser' }, 'This browser'),
    h(
      'p',
      { class: 'muted' },
      `${account.name}’s spaces and keys are kept in this browser. On a computer that isn’t yours, forget them before you go.`,
    ),
    h('div', { class: 'actions' }, button),
    status,
  );
}
