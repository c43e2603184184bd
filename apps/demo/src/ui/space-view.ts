/**
 * A space: its posts, newest first, a composer, the person's profile, who is synced, and an
 * invite. It renders from the node's local data at once; peers' changes re-render it.
 */

import { formatBytes } from '../file-limits.js';
import type { NodeClient } from '../node-client.js';
import {
  AVATAR_EDGE,
  type PhotoView,
  type PostView,
  type ProfileView,
  type SyncView,
  THUMBNAIL_EDGE,
} from '../protocol.js';
import { thumbnailOf, thumbnailUrl } from '../thumbnail.js';
import { field, h, shortDid } from './dom.js';

/** Posts shown; older ones stay in the space. */
const FEED_LIMIT = 50;

export interface SpaceViewHandle {
  close(): void;
  /** Resolves once the first render, from local data, is on screen. */
  rendered: Promise<void>;
}

export function renderSpace(
  main: HTMLElement,
  client: NodeClient,
  space: string,
  onSync: (sync: SyncView) => void,
): SpaceViewHandle {
  const urls: string[] = [];
  const url = (image: Parameters<typeof thumbnailUrl>[0]) => {
    const u = thumbnailUrl(image);
    urls.push(u);
    return u;
  };
  const error = h('p', { class: 'error', role: 'alert' });
  const fail = (e: unknown) => (error.textContent = (e as Error).message);
  const title = h('h2', { id: 'space-title' }, 'Space');
  const feed = h('ol', { class: 'plain', id: 'feed', 'aria-label': 'Posts' });
  const peers = h('ul', { class: 'plain', id: 'peers' });
  const inviteOut = h('p', { class: 'code', id: 'invite-out' });

  // Composer: text and an optional photo.
  const text = h('textarea', { id: 'post-text', rows: 3, required: true });
  const photo = h('input', { id: 'post-photo', type: 'file', accept: 'image/*' });
  const composer = h(
    'form',
    {
      class: 'card',
      'aria-label': 'New post',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          const file = photo.files?.[0];
          const picture = file
            ? {
                image: await thumbnailOf(file, THUMBNAIL_EDGE),
                bytes: new Uint8Array(await file.arrayBuffer()),
                name: file.name,
              }
            : undefined;
          await client.call('post', space, text.value, picture);
          text.value = '';
          photo.value = '';
          text.focus();
        } catch (e) {
          fail(e);
        }
      },
    },
    h('label', { for: 'post-text' }, 'Write a post'),
    text,
    h('label', { for: 'post-photo' }, 'Photo (optional)'),
    photo,
    h('button', { type: 'submit' }, 'Post'),
  );

  // Profile: a name and an avatar, resized here before it is written.
  const [nameLabel, name] = field('profile-name', 'Name shown to others', { required: true });
  const avatar = h('input', { id: 'profile-avatar', type: 'file', accept: 'image/*' });
  const profileForm = h(
    'form',
    {
      class: 'card',
      'aria-label': 'Your profile',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          const file = avatar.files?.[0];
          const image = file ? await thumbnailOf(file, AVATAR_EDGE) : undefined;
          await client.call('setProfile', space, name.value, image);
        } catch (e) {
          fail(e);
        }
      },
    },
    h('h2', {}, 'Your profile'),
    nameLabel,
    name,
    h('label', { for: 'profile-avatar' }, 'Avatar (optional)'),
    avatar,
    h('button', { type: 'submit' }, 'Save profile'),
  );

  const invite = h(
    'section',
    { 'aria-labelledby': 'invite-title' },
    h('h2', { id: 'invite-title' }, 'Invite someone'),
    h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          try {
            const { code, host } = await client.call('invite', space);
            const params = new URLSearchParams({ join: code });
            if (host) params.set('host', host);
            const link = `${location.origin}${location.pathname}#${params}`;
            inviteOut.replaceChildren(
              'Give this link to one person: ',
              h('a', { href: link, id: 'invite-link' }, 'invite link'),
              h('br'),
              h('span', { id: 'invite-code' }, code),
            );
          } catch (e) {
            fail(e);
          }
        },
      },
      'Make an invite',
    ),
    inviteOut,
  );

  main.replaceChildren(
    h('p', {}, h('a', { href: '#' }, '← Spaces')),
    title,
    error,
    h('div', { class: 'row' }, composer, profileForm),
    h(
      'section',
      { 'aria-labelledby': 'peers-title' },
      h('h2', { id: 'peers-title' }, 'Sync'),
      peers,
    ),
    invite,
    h('section', { 'aria-labelledby': 'feed-title' }, h('h2', { id: 'feed-title' }, 'Posts'), feed),
  );

  let profiles = new Map<string, ProfileView>();
  const who = (did: string) => profiles.get(did)?.name ?? shortDid(did);

  const renderPost = (post: PostView) => {
    const profile = profiles.get(post.author);
    return h(
      'li',
      {},
      h(
        'article',
        { class: 'post', 'data-post': post.id },
        h(
          'header',
          {},
          profile?.avatar
            ? h('img', { class: 'avatar', src: url(profile.avatar), alt: '' })
            : h('span', { class: 'avatar', 'aria-hidden': 'true' }),
          h('strong', { class: 'author' }, who(post.author)),
          h(
            'time',
            { datetime: new Date(post.at).toISOString() },
            new Date(post.at).toLocaleString(),
          ),
        ),
        h('p', { class: 'text' }, post.text),
        post.photo && renderPhoto(post, post.photo),
      ),
    );
  };

  /** Full pictures read so far, by file id: kept across renders, revoked on close. */
  const full = new Map<string, Promise<string>>();
  const progress = new Map<string, HTMLProgressElement>();
  /** Files fetched from this view, by size: their finished bar stays across renders. */
  const fetched = new Map<string, number>();
  const showProgress = (file: string, done: number, total: number) => {
    if (done >= total) fetched.set(file, total);
    const bar = progress.get(file);
    if (!bar) return;
    bar.max = total;
    bar.value = done;
    bar.textContent = `${Math.round((100 * done) / Math.max(1, total))}%`;
  };
  const readFull = (post: PostView, photo: PhotoView, img: HTMLImageElement) => {
    const id = photo.file!.id;
    let reading = full.get(id);
    if (!reading) {
      reading = client
        .call('readPhoto', space, post.id)
        .then((bytes) => URL.createObjectURL(new Blob([bytes.slice()], { type: photo.mime })));
      full.set(id, reading);
      reading.catch(() => full.delete(id));
    }
    void reading.then((src) => {
      img.src = src;
      img.dataset.kind = 'full';
      // The bar stays, full, so it's clear the fetch finished.
      img.closest('figure')?.querySelector('.fetch button')?.replaceWith('Full photo fetched');
    }, fail);
  };
  const renderPhoto = (post: PostView, photo: PhotoView) => {
    const img = h('img', {
      class: 'photo',
      src: url(photo),
      width: photo.width,
      height: photo.height,
      alt: `Photo by ${who(post.author)}`,
      'data-kind': 'thumbnail',
    });
    const figure = h('figure', {}, img);
    const file = photo.file;
    if (!file) return figure;
    // Held here: the picture itself, read locally. Otherwise the thumbnail, and a button that
    // fetches the picture, within the device's limits or past them.
    const done = fetched.get(file.id);
    if (done !== undefined) {
      const bar = h('progress', { max: done, value: done, 'aria-label': 'Photo download' });
      figure.append(h('div', { class: 'fetch' }, 'Full photo fetched ', bar));
    }
    if (file.whole || full.has(file.id)) readFull(post, photo, img);
    else {
      const bar = h('progress', { max: file.size, value: 0, 'aria-label': 'Photo download' });
      progress.set(file.id, bar);
      figure.append(
        h(
          'div',
          { class: 'fetch' },
          h(
            'button',
            {
              type: 'button',
              class: 'quiet',
              onclick: () => readFull(post, photo, img),
            },
            `Show the full photo (${formatBytes(file.size)})`,
          ),
          ' ',
          bar,
        ),
      );
    }
    return figure;
  };

  const render = async () => {
    const [spaces, posts, list] = await Promise.all([
      client.call('spaces'),
      client.call('posts', space, FEED_LIMIT),
      client.call('profiles', space),
    ]);
    title.textContent = spaces.find((s) => s.id === space)?.name ?? 'Space';
    profiles = new Map(list.map((p) => [p.did, p]));
    const mine = client.did ? profiles.get(client.did) : undefined;
    if (mine && !name.value) name.value = mine.name;
    for (const u of urls.splice(0)) URL.revokeObjectURL(u);
    feed.replaceChildren(...posts.map(renderPost));
    if (!posts.length) feed.append(h('li', {}, 'No posts yet.'));
    main.dataset.posts = String(posts.length);
  };

  const renderSync = (sync: SyncView) => {
    onSync(sync);
    peers.replaceChildren(
      ...(sync.peers.length
        ? sync.peers.map((p) =>
            h(
              'li',
              { class: 'peer', 'data-level': String(p.level) },
              `${who(p.did)}: `,
              h(
                'span',
                { class: 'state' },
                p.level ? 'synced, level' : p.synced ? 'synced' : 'syncing…',
              ),
            ),
          )
        : [h('li', {}, sync.online ? 'No peer connected yet.' : 'Offline: posts wait here.')]),
    );
  };

  // Changes come in bursts (one per message taken in): render once per frame at most.
  let queued = false;
  const rerender = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      render().catch(fail);
    });
  };
  client.follow(space);
  const off = client.on((event) => {
    if (event.space !== space) return;
    if (event.event === 'changed') rerender();
    else if (event.event === 'sync') renderSync(event.sync);
    else showProgress(event.file, event.done, event.total);
  });
  const rendered = render().then(() => {
    performance.mark('minca:first-render');
    main.dataset.rendered = 'true';
  });
  rendered.catch(fail);
  void client.call('sync', space).then(renderSync, () => undefined);
  text.focus();
  return {
    rendered,
    close() {
      off();
      for (const u of urls.splice(0)) URL.revokeObjectURL(u);
      for (const reading of full.values())
        void reading.then(
          (u) => URL.revokeObjectURL(u),
          () => {},
        );
    },
  };
}
