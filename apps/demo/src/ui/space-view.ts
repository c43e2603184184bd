/**
 * A space: the feed first, with the composer on top; beside it (below it on a phone) who is
 * in the space and how this device stands with the host; an invite in a dialog. It renders
 * from the node's local data at once; peers' changes re-render it.
 */
import { loadLimits } from '../file-limits.js';
import type { NodeClient } from '../node-client.js';
import type { PostView, ProfileView, SpaceView, SyncView } from '../protocol.js';
import { composer } from './composer.js';
import { h, heading } from './dom.js';
import { openInvite } from './invite-view.js';
import { peopleView, syncLine } from './people-view.js';
import { Pictures } from './pictures.js';
import { type PostContext, renderPost } from './post-view.js';
import { Videos } from './video-view.js';

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
  account: string,
  space: string,
  onSync: (sync: SyncView) => void,
  aside: HTMLElement[],
): SpaceViewHandle {
  const pictures = new Pictures(client, space);
  const videos = new Videos();
  const error = h('p', { class: 'error', role: 'alert' });
  const fail = (e: unknown) => (error.textContent = (e as Error).message);
  const title = heading('Space', 'space-title');
  const feed = h('ol', { class: 'plain feed', id: 'feed', 'aria-label': 'Posts' });
  const pill = h('span', { class: 'sync-pill', id: 'sync-pill' });

  let profiles = new Map<string, ProfileView>();
  let current: SpaceView | undefined;
  const ctx: PostContext = {
    client,
    space,
    pictures,
    videos,
    who: (did) => profiles.get(did)?.name ?? 'Someone new',
    profile: (did) => profiles.get(did),
    me: client.did,
    ahead: loadLimits(account).ahead,
    refresh: () => rerender(),
    progress: new Map(),
    fail,
  };
  const people = peopleView(ctx, {
    remove: async (did) => {
      await client.call('removeMember', space, did);
      rerender();
    },
    spaceName: () => current?.name ?? 'this space',
  });
  const inviteButton = h(
    'button',
    {
      type: 'button',
      id: 'invite-open',
      onclick: () => openInvite(client, space, current?.name ?? 'this space', inviteButton),
    },
    'Invite someone',
  );

  main.replaceChildren(
    h(
      'div',
      { class: 'space-head' },
      h('a', { href: `#a=${account}`, class: 'back' }, '← Spaces'),
      title,
      pill,
      inviteButton,
    ),
    error,
    h(
      'div',
      { class: 'space-layout' },
      h(
        'section',
        { class: 'feed-column', 'aria-labelledby': 'feed-title' },
        h('h2', { id: 'feed-title', class: 'visually-hidden' }, 'Posts'),
        composer(client, space, () => `Share something with ${current?.name ?? 'the space'}…`),
        feed,
      ),
      h('div', { class: 'side-column' }, people.element, ...aside),
    ),
  );

  const render = async () => {
    const [spaces, posts, list] = await Promise.all([
      client.call('spaces'),
      client.call('posts', space, FEED_LIMIT),
      client.call('profiles', space),
    ]);
    current = spaces.find((s) => s.id === space);
    title.textContent = current?.name ?? 'Space';
    const text = main.querySelector<HTMLTextAreaElement>('#post-text');
    if (text) text.placeholder = `Share something with ${title.textContent}…`;
    document.title = `${title.textContent} · minca`;
    profiles = new Map(list.map((p) => [p.did, p]));
    ctx.ahead = loadLimits(account).ahead;
    feed.replaceChildren(...posts.map((p: PostView) => renderPost(p, ctx)));
    if (!posts.length) {
      feed.append(
        h('li', { class: 'empty' }, 'No posts yet. Write the first one, or invite someone.'),
      );
    }
    people.update(list, current);
    main.dataset.posts = String(posts.length);
  };

  const renderSync = (sync: SyncView) => {
    onSync(sync);
    people.sync(sync);
    const { state, text } = syncLine(sync);
    pill.dataset.state = state;
    pill.textContent = text;
  };

  const showProgress = (file: string, done: number, total: number) => {
    ctx.progress.set(file, { done, total });
    for (const bar of main.querySelectorAll<HTMLProgressElement>(`progress[data-file="${file}"]`)) {
      bar.hidden = false;
      bar.max = total;
      bar.value = done;
    }
    for (const figure of main.querySelectorAll<HTMLElement>(`figure[data-file="${file}"]`)) {
      figure.dataset.progressDone = String(done);
      figure.dataset.progressTotal = String(total);
    }
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
  return {
    rendered,
    close() {
      off();
      pictures.close();
      videos.close();
      delete main.dataset.rendered;
      delete main.dataset.posts;
    },
  };
}
