/**
 * Who is in the space and how this device stands with the host, in plain words: "Up to date
 * with the host", "2 posts waiting to send". People are their profiles' names, never keys.
 */
import type { ProfileView, SpaceView, SyncView } from '../protocol.js';
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

export function peopleView(ctx: PostContext): PeopleView {
  const members = h('ul', { class: 'plain people', id: 'members' });
  const line = h('p', { class: 'sync', id: 'sync-state', role: 'status' });
  const peers = h('ul', { class: 'plain', id: 'peers', 'aria-label': 'Connected' });
  // An invite link used by more than one account (it was passed on): told to the owner.
  const alerts = h('div', { id: 'invite-alerts', role: 'status' });
  let lastSync: SyncView | undefined;
  let owner: string | undefined;
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
          'p',
          { class: 'alert' },
          `One invite link was used by ${accounts.length} people: ${list}. Each of them is in the space now. If you sent it to one person, it was passed on.`,
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
      const sorted = [...people].sort((a, b) =>
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
          ),
        ),
      );
      if (!people.length) members.append(h('li', { class: 'muted' }, 'Only you, so far.'));
      showSync();
    },
    sync(sync) {
      lastSync = sync;
      showSync();
    },
  };
}
