/**
 * The account home asks the person before an app may use their account: which app (its
 * origin, and the name it gives itself), with which account, and which spaces. On "Allow" the
 * account's root certifies the app's own writer key for those spaces only, the node hands over
 * their tickets and syncs them with the app once, and the window closes when the app has them.
 */
import { type Account, rememberApp } from '../accounts.js';
import { answer, awaitRequest, awaitSynced, type ConnectRequest } from '../connect-request.js';
import { certify, rootSigner } from '../device-keys.js';
import type { NodeClient } from '../node-client.js';
import { h, heading } from './dom.js';
import './home.css';

/** How long the window waits for the app to say it has its spaces before it closes. */
const HAND_OVER_MS = 60_000;

export interface ConnectActions {
  accounts: Account[];
  client(account: Account): Promise<NodeClient>;
}

export async function renderConnect(main: HTMLElement, actions: ConnectActions): Promise<void> {
  const title = heading('Connecting an app…', 'page-title');
  const error = h('p', { class: 'error', role: 'alert' });
  main.replaceChildren(h('div', { class: 'narrow' }, title, error));
  title.focus();
  const opener = window.opener as Window | null;
  if (!opener) {
    title.textContent = 'Connect an app';
    error.textContent = 'Open this page from the app that wants to connect: it asks from there.';
    return;
  }
  let request: ConnectRequest;
  try {
    request = await awaitRequest(opener);
  } catch (e) {
    title.textContent = 'This app can’t connect';
    error.textContent = (e as Error).message;
    return;
  }
  const deny = (reason: string) => {
    answer(opener, request.origin, { type: 'minca-home:denied', v: 1, reason });
    window.close();
  };
  title.textContent = `Connect ${request.name} to your account?`;
  const { accounts } = actions;
  if (accounts.length === 0) {
    const no = h('button', { type: 'button', class: 'quiet' }, 'Don’t connect');
    no.addEventListener('click', () => deny('there is no account in this home yet'));
    main.firstElementChild!.append(
      h('p', {}, 'There is no account in this browser yet: make one first, then connect the app.'),
      h('div', { class: 'actions' }, no),
    );
    return;
  }

  const chooser = h('div', { class: 'space-choices', id: 'app-spaces' });
  const allow = h('button', { type: 'submit', disabled: true }, 'Allow');
  const no = h('button', { type: 'button', class: 'quiet' }, 'Don’t allow');
  const status = h('p', { role: 'status', id: 'connect-status', class: 'muted' });
  let account = accounts[0]!;
  const chosen = () =>
    [...chooser.querySelectorAll<HTMLInputElement>('input[name=space]:checked')].map(
      (i) => i.value,
    );
  const showSpaces = async () => {
    const spaces = await (await actions.client(account)).call('spaces');
    chooser.replaceChildren(
      h('p', { id: 'spaces-legend' }, `Which of ${account.name}’s spaces may it use?`),
      ...(spaces.length
        ? spaces.map((s) =>
            h(
              'label',
              {},
              h('input', { type: 'checkbox', name: 'space', value: s.id }),
              h('span', {}, s.name),
            ),
          )
        : [h('p', { class: 'muted' }, 'None yet: make a space first.')]),
    );
    allow.disabled = true;
  };
  chooser.addEventListener('change', () => (allow.disabled = chosen().length === 0));
  const accountChoice =
    accounts.length > 1
      ? h(
          'fieldset',
          { class: 'space-choices' },
          h('legend', {}, 'As'),
          ...accounts.map((a, i) => {
            const radio = h('input', { type: 'radio', name: 'account', value: a.id });
            radio.checked = i === 0;
            radio.addEventListener('change', () => {
              account = a;
              void showSpaces();
            });
            return h('label', {}, radio, h('span', {}, a.name));
          }),
        )
      : undefined;
  no.addEventListener('click', () => deny('the person did not allow it'));
  const form = h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'page-title',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        allow.disabled = true;
        no.disabled = true;
        error.textContent = '';
        try {
          await approve(opener, request, account, chosen(), await actions.client(account), status);
        } catch (e) {
          error.textContent = (e as Error).message;
          no.disabled = false;
        }
      },
    },
    h(
      'p',
      { class: 'app-request' },
      `${request.origin} asks to use your account. It calls itself “${request.name}”.`,
    ),
    h(
      'p',
      { class: 'muted' },
      'It gets a key of its own that writes only in the spaces you choose here. It sees nothing of your other spaces, and never your keys.',
    ),
    accountChoice,
    chooser,
    h('div', { class: 'actions' }, allow, no),
    status,
  );
  main.firstElementChild!.append(form);
  await showSpaces();
}

/** Certifies the app's key for `spaces`, hands them over, and closes once the app has them. */
async function approve(
  opener: Window,
  request: ConnectRequest,
  account: Account,
  spaces: string[],
  client: NodeClient,
  status: HTMLElement,
): Promise<void> {
  if (spaces.length === 0) throw new TypeError('choose at least one space');
  const root = await rootSigner(account.id);
  if (!root) throw new TypeError(`${account.name}’s keys are not in this browser`);
  status.textContent = 'Connecting…';
  const certificate = await certify(root, {
    kind: 'writer',
    subject: request.writer,
    account: account.did,
    issued: Date.now(),
    spaces,
    label: request.origin,
  });
  const given = await client.call('shareWithApp', spaces);
  await client.connectApp(request.port, spaces);
  await rememberApp(account.id, {
    origin: request.origin,
    name: request.name,
    writer: request.writer,
    spaces,
    connected: Date.now(),
  });
  const synced = awaitSynced(opener, request.origin);
  answer(opener, request.origin, {
    type: 'minca-home:approved',
    v: 1,
    account: account.did,
    certificate: certificate.bytes,
    spaces: given,
  });
  status.textContent = `Connected. Handing ${given.length === 1 ? 'the space' : 'the spaces'} to ${request.name}…`;
  await Promise.race([synced, new Promise((r) => setTimeout(r, HAND_OVER_MS))]);
  status.textContent = 'Done.';
  window.close();
}
