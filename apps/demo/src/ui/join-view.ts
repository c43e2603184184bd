/**
 * Opening an invite link: who invites you to which space, and one click to join, as an
 * account of this browser or a new one made with the name typed here.
 */
import { type Account, createAccount, listAccounts } from '../accounts.js';
import { openLink } from '../invite-link.js';
import type { Invite } from '../protocol.js';
import { field, h, heading, initials } from './dom.js';

export interface JoinActions {
  /** Joins with `account` and opens the space. */
  join(account: Account, invite: Invite): Promise<void>;
  /** The accounts here that hold the space already. */
  holding(invite: Invite): Promise<Account[]>;
}

export async function renderJoin(main: HTMLElement, token: string, actions: JoinActions) {
  const error = h('p', { class: 'error', role: 'alert' });
  const title = heading('Opening the invite…', 'page-title');
  main.replaceChildren(h('div', { class: 'narrow' }, title, error));
  let invite: Invite;
  try {
    invite = await openLink(token);
  } catch (e) {
    title.textContent = 'This invite does not open';
    error.textContent = (e as Error).message;
    main.firstElementChild?.append(h('p', {}, h('a', { href: '#home' }, 'Go to your spaces')));
    title.focus();
    return;
  }
  const accounts = await listAccounts();
  const holding = await actions.holding(invite);
  const busy = (button: HTMLButtonElement, work: () => Promise<void>) => async () => {
    button.disabled = true;
    error.textContent = '';
    try {
      await work();
    } catch (e) {
      error.textContent = (e as Error).message;
      button.disabled = false;
    }
  };
  const spaceName = invite.space.name;
  title.textContent = `${invite.from.name} invites you to ${spaceName}`;
  const body: Array<HTMLElement | undefined> = [];
  if (holding.length) {
    const account = holding[0]!;
    body.push(
      h('p', {}, `${account.name}, you are in ${spaceName} already.`),
      h(
        'div',
        { class: 'actions' },
        h(
          'a',
          { class: 'button', href: `#a=${account.id}&s=${invite.space.id}` },
          `Open ${spaceName}`,
        ),
      ),
    );
  } else {
    for (const account of accounts) {
      const button: HTMLButtonElement = h(
        'button',
        { type: 'button', class: 'choice' },
        initials(account.name, account.did),
        h('span', {}, `Join as ${account.name}`),
      );
      button.addEventListener(
        'click',
        busy(button, () => actions.join(account, invite)),
      );
      body.push(button);
    }
    const [label, input] = field('join-name', 'Your name', {
      required: true,
      autocomplete: 'name',
      maxlength: 80,
    });
    const submit = h('button', { type: 'submit' }, `Join ${spaceName}`);
    body.push(
      h(
        'form',
        {
          class: accounts.length ? 'card' : 'card plain-card',
          onsubmit: (event: Event) => {
            event.preventDefault();
            void busy(submit, async () => actions.join(await createAccount(input.value), invite))();
          },
        },
        accounts.length ? h('h3', {}, 'Or as someone new') : undefined,
        label,
        input,
        h('div', { class: 'actions' }, submit),
        h(
          'p',
          { class: 'muted' },
          'Joining makes an account in this browser: its key stays here. The people in the space see your name.',
        ),
      ),
    );
  }
  main.replaceChildren(
    h(
      'div',
      { class: 'narrow join' },
      h('p', { class: 'eyebrow' }, 'You are invited'),
      title,
      h(
        'p',
        { class: 'lede' },
        `${spaceName} is a space for posts and photos. ${invite.from.name} made this link for you.`,
      ),
      ...body,
      error,
    ),
  );
  title.focus();
}
