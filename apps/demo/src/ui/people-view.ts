/**
 * Who is in the space and how this device stands with the host, in plain words: "Up to date
 * with the host", "2 posts waiting to send". People are their profiles' names, never keys.
 */
import type { ProfileView, SpaceView, SyncView } from '../protocol.js';
import { confirmAction } from './confirm.js';
import { count, h } from './dom.js';
import { avatarOf, type PostContext } from './post-view.js';

export type SyncState = 'level' | 'syncing' | 'connecting' | 'offline' | 'refused' | 'alone';

/** The one line that says where this device stands, and its kind (for its colour). */
export function syncLine(sync: SyncView | undefined): { state: SyncState; text: string } {
  const waiting = sync?.waiting ?? 0;
  const posts = waiting > 0 ? `${count(waiting, 'post')} waiting to send` : '';
  if (!sync?.online) {
    return {
      state: 'offline',
      text: posts ? `Offline: ${posts}` : 'Offline: new posts wait here until you are back',
    };
  }
  const host = sync.host ? sync.peers.find((p) => p.did === sync.host) : undefined;
  if (host?.refused) return { state: 'refused', text: `The host refused: ${host.refused}` };
  if (!sync.connected || (sync.host && !host)) {
    return { state: 'connecting', text: `Connecting to the host…${posts ? ` ${posts}` : ''}` };
  }
  if (!sync.host) return { state: 'alone', text: 'No host: posts stay on this device' };
  if (host?.level) return { state: 'level', text: 'Up to date with the host' };
  return { state: 'syncing', text: posts ? `Syncing: ${posts}` : 'Syncing with the host…' };
}

export interface PeopleView {
  element: HTMLElement;
  update(people: ProfileView[], space: SpaceView | undefined): void;
  sync(sync: SyncView): void;
}

/** What the owner may do about the people in a space. */
export interface PeopleActions {
  /** Removes `did` from the space (asked first). */
  remove(did: string): Promise<void>;
  /** The space's name, for the question. */
  spaceName(): string;
}

export function peopleView(ctx: PostContext, actions: PeopleActions): PeopleView {
  const members = h('ul', { class: 'plain people', id: 'members' });
  const line = h('p', { class: 'sync', id: 'sync-state', role: 'status' });
  const peers = h('ul', { class: 'plain', id: 'peers', 'aria-label': 'Connected' });
  // An invite link used by more than one account (it was passed on): told to the owner.
  const alerts = h('div', { id: 'invite-alerts', role: 'status' });
  let lastSync: SyncView | undefined;
  let owner: string | undefined;

  /** Asks the owner, then removes `did`: their later posts don't count, and they can't read on. */
  const askToRemove = async (did: string, opener: HTMLElement) => {
    const name = ctx.who(did);
    const space = actions.spaceName();
    const yes = await confirmAction({
      title: `Remove ${name} from ${space}?`,
      says: [
        `${name} will no longer be in ${space}: what they post from now on is not shown to anyone, and they can't read what is posted after this.`,
        `Their posts so far stay. To have them back, invite them again.`,
      ],
      action: `Remove ${name}`,
      opener,
    });
    if (yes) await actions.remove(did).catch(ctx.fail);
  };
  const removeButton = (did: string, label: string, text: string) => {
    const button: HTMLButtonElement = h(
      'button',
      { type: 'button', class: 'danger quiet small remove', 'aria-label': label },
      text,
    );
    button.addEventListener('click', () => void askToRemove(did, button));
    return button;
  };
  const element = h(
    'section',
    { class: 'card', 'aria-labelledby': 'people-title', id: 'people' },
    h('h2', { id: 'people-title' }, 'People'),
    members,
    line,
    peers,
    alerts,
  );

  const showReused = () => {
    alerts.replaceChildren(
      ...(lastSync?.reused ?? []).map(({ accounts }) => {
        const names = accounts.map((did) => ctx.who(did));
        const list = `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
        return h(
          'div',
          { class: 'alert' },
          h(
            'p',
            {},
            `One invite link was used by ${accounts.length} people: ${list}. Each of them is in the space now. If you sent it to one person, it was passed on.`,
          ),
          h(
            'div',
            { class: 'actions' },
            ...accounts.map((did) =>
              removeButton(did, `Remove ${ctx.who(did)}`, `Remove ${ctx.who(did)}`),
            ),
          ),
        );
      }),
    );
  };

  const showSync = () => {
    showReused();
    const { state, text } = syncLine(lastSync);
    line.dataset.state = state;
    line.textContent = text;
    const sync = lastSync;
    peers.replaceChildren(
      ...(sync?.peers.length
        ? sync.peers.map((p) =>
            h(
              'li',
              { class: 'peer', 'data-level': String(p.level) },
              p.did === sync.host ? 'The host' : ctx.who(p.did),
              ': ',
              h(
                'span',
                { class: 'state' },
                p.refused ? 'refused our posts' : p.level ? 'up to date' : 'syncing…',
              ),
            ),
          )
        : [
            h(
              'li',
              { class: 'muted' },
              sync?.online === false ? 'Offline: posts wait here.' : 'Not connected yet.',
            ),
          ]),
    );
  };

  return {
    element,
    update(people, space) {
      owner = space?.owner;
      const sorted = people
        .filter((p) => !p.removed)
        .sort((a, b) =>
          a.did === ctx.me ? -1 : b.did === ctx.me ? 1 : a.name.localeCompare(b.name),
        );
      members.replaceChildren(
        ...sorted.map((p) =>
          h(
            'li',
            { class: 'person' },
            avatarOf(ctx, p.did),
            h('span', { class: 'name' }, p.name),
            p.did === ctx.me ? h('span', { class: 'tag' }, 'you') : undefined,
            p.did === owner ? h('span', { class: 'tag' }, 'made this space') : undefined,
            // The owner may remove anyone else.
            owner !== undefined && ctx.me === owner && p.did !== owner
              ? removeButton(p.did, `Remove ${p.name} from the space`, 'Remove')
              : undefined,
          ),
        ),
      );
      if (!sorted.length) members.append(h('li', { class: 'muted' }, 'Only you, so far.'));
      showSync();
    },
    sync(sync) {
      lastSync = sync;
      showSync();
    },
  };
}
