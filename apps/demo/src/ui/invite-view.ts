/**
 * Inviting someone: a short link (src/invite-link.ts) in a dialog, with a button that copies
 * it. The link is shown as text to copy, not one to follow, so the person making it stays in
 * the space.
 */
import { shortLink } from '../invite-link.js';
import type { NodeClient } from '../node-client.js';
import { h } from './dom.js';

async function copy(text: string, input: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission: the text is selected, for Ctrl-C.
    input.select();
    return false;
  }
}

export function openInvite(
  client: NodeClient,
  space: string,
  spaceName: string,
  opener: HTMLElement,
) {
  const input = h('input', {
    id: 'invite-link',
    type: 'text',
    readonly: true,
    value: '',
    'aria-describedby': 'invite-help',
  });
  const status = h('p', { role: 'status', id: 'invite-status', class: 'muted' }, 'Making a link…');
  // The code itself, for `minca space join <code>` in a terminal.
  const code = h('textarea', { id: 'invite-code', readonly: true, rows: 4, class: 'code' });
  const copyButton = h('button', { type: 'button', disabled: true }, 'Copy link');
  const done = h('button', { type: 'button', class: 'quiet' }, 'Done');
  const dialog = h(
    'dialog',
    { class: 'sheet', 'aria-labelledby': 'invite-title' },
    h('h2', { id: 'invite-title' }, `Invite someone to ${spaceName}`),
    h(
      'p',
      { id: 'invite-help' },
      'Send this link to the person you invite: it lets them join as a writer. Anyone who has it can use it, so send it only to them; if it is passed on and used again, People tells you who joined with it.',
    ),
    h('label', { for: 'invite-link' }, 'Invite link'),
    input,
    h('div', { class: 'actions' }, copyButton, done),
    status,
    h(
      'details',
      {},
      h('summary', {}, 'The whole code, for the minca command'),
      h('label', { for: 'invite-code' }, 'Invite code (minca space join <code>)'),
      code,
    ),
  );
  done.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    dialog.remove();
    opener.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  done.focus();
  void client
    .call('invite', space)
    .then((invite) => {
      code.value = invite.code;
      return shortLink(invite, `${location.origin}${location.pathname}`);
    })
    .then(
      (link) => {
        input.value = link;
        copyButton.disabled = false;
        status.textContent = '';
        copyButton.focus();
        copyButton.addEventListener('click', async () => {
          status.textContent = (await copy(link, input))
            ? 'Copied. Paste it in a message to the person you invite.'
            : 'Selected: press Ctrl-C (⌘-C) to copy it.';
        });
      },
      (error: Error) => (status.textContent = `No link: ${error.message}`),
    );
}
