/**
 * One post: who wrote it and when, its text, and its photo or video (video-view.ts). A photo
 * shows what this device has:
 * the full picture when its file is here, else the thumbnail (a small file fetched ahead), else
 * the ThumbHash placeholder from the record; a button fetches the full photo, and a click opens
 * it large (the lightbox).
 */
import { formatBytes } from '../file-limits.js';
import type { NodeClient } from '../node-client.js';
import type { PictureView, PostView, ProfileView } from '../protocol.js';
import { h, initials, when } from './dom.js';
import { openLightbox } from './lightbox.js';
import { type Pictures, READ_AFTER_MS } from './pictures.js';
import { renderVideo, type Videos } from './video-view.js';

export interface PostContext {
  client: NodeClient;
  space: string;
  pictures: Pictures;
  videos: Videos;
  /** The person's name, from their profile. */
  who: (did: string) => string;
  profile: (did: string) => ProfileView | undefined;
  me: string | undefined;
  /**
   * Files up to this size are fetched ahead by the node (the device's `ahead` limit): one in
   * view is read at once, which fetches it now if the node's fetch ahead has not yet.
   */
  ahead: number;
  /** Renders the feed again (a picture read in the background is here). */
  refresh: () => void;
  /** Download progress of a file being fetched here, by file id. */
  progress: Map<string, { done: number; total: number }>;
  fail: (error: unknown) => void;
}

export function avatarOf(ctx: PostContext, did: string): HTMLElement {
  const profile = ctx.profile(did);
  const avatar = profile?.avatar;
  if (!avatar) return initials(ctx.who(did), did);
  const img = h('img', {
    class: 'avatar',
    alt: '',
    width: 40,
    height: 40,
    src:
      ctx.pictures.ready(avatar.file.id) ??
      ctx.pictures.placeholder(avatar.file.id, avatar.placeholder),
  });
  const read = () => ctx.pictures.read(avatar.file.id, { profile: did }, avatar.mime);
  if (!ctx.pictures.ready(avatar.file.id)) {
    if (avatar.file.whole)
      void read().then(
        (src) => (img.src = src),
        () => undefined,
      );
    else if (avatar.file.size <= ctx.ahead) {
      ctx.pictures.later(
        avatar.file.id,
        READ_AFTER_MS,
        () => void read().then(ctx.refresh, () => undefined),
      );
    }
  }
  return img;
}

export function renderPost(post: PostView, ctx: PostContext): HTMLElement {
  const name = ctx.who(post.author);
  return h(
    'li',
    {},
    h(
      'article',
      { class: 'post', 'data-post': post.id, 'aria-label': `Post by ${name}` },
      h(
        'header',
        {},
        avatarOf(ctx, post.author),
        h('strong', { class: 'author' }, name),
        post.author === ctx.me ? h('span', { class: 'tag' }, 'you') : undefined,
        h(
          'time',
          { datetime: new Date(post.at).toISOString(), title: new Date(post.at).toLocaleString() },
          when(post.at),
        ),
      ),
      post.text.trim() ? h('p', { class: 'text' }, post.text) : undefined,
      post.photo && renderPhoto(post, post.photo, ctx, name),
      post.video && renderVideo(post, post.video, ctx, name),
    ),
  );
}

function renderPhoto(post: PostView, photo: PictureView, ctx: PostContext, name: string) {
  const { pictures } = ctx;
  const full = photo.file;
  const thumb = photo.thumbnail;
  const alt = photo.alt || `Photo by ${name}`;
  const readFull = () => pictures.read(full.id, { post: post.id, part: 'file' }, photo.mime);
  // What to show now: the first of these that is here.
  const shown = (pictures.ready(full.id) && { src: pictures.ready(full.id), kind: 'full' }) ||
    (thumb && pictures.ready(thumb.id) && { src: pictures.ready(thumb.id), kind: 'thumbnail' }) || {
      src: pictures.placeholder(full.id, photo.placeholder),
      kind: 'placeholder',
    };
  const img = h('img', {
    class: 'photo',
    src: shown.src,
    width: photo.width,
    height: photo.height,
    alt,
    'data-kind': shown.kind,
  });
  const show = (kind: 'full' | 'thumbnail') => (src: string) => {
    // A full picture is never replaced by the thumbnail that arrived after it.
    if (kind === 'thumbnail' && img.dataset.kind === 'full') return;
    img.src = src;
    img.dataset.kind = kind;
  };
  // A file this device fetches ahead is shown once it is whole. If it isn't a little after
  // its post arrived (the fetch ahead found nobody who had it yet, and rests 10 minutes), it
  // is read: a read asks again until someone has it.
  const fetchesAhead = (file: { whole: boolean; size: number }) =>
    file.whole || file.size <= ctx.ahead;
  const readThumb = () =>
    pictures.read(thumb!.id, { post: post.id, part: 'thumbnail' }, 'image/jpeg');
  if (shown.kind !== 'full') {
    if (full.whole) void readFull().then(show('full'), ctx.fail);
    else if (thumb?.whole && shown.kind === 'placeholder') {
      void readThumb().then(show('thumbnail'), ctx.fail);
    }
    const late = (read: () => Promise<string>) => () =>
      void read().then(ctx.refresh, () => undefined);
    if (!full.whole && fetchesAhead(full)) pictures.later(full.id, READ_AFTER_MS, late(readFull));
    else if (thumb && !thumb.whole && fetchesAhead(thumb)) {
      pictures.later(thumb.id, READ_AFTER_MS, late(readThumb));
    }
  }
  const open = h(
    'button',
    {
      type: 'button',
      class: 'photo-button',
      'aria-label': `Open the photo by ${name}`,
      onclick: () =>
        openLightbox(
          {
            alt,
            src: img.src,
            width: photo.width,
            height: photo.height,
            full: async () => {
              const src = await readFull();
              show('full')(src);
              return src;
            },
          },
          () => document.querySelector(`[data-post="${post.id}"] .photo-button`),
        ),
    },
    img,
  );
  const figure = h('figure', { class: 'photo-frame', 'data-file': full.id }, open);
  const progress = ctx.progress.get(full.id);
  if (progress) {
    figure.dataset.progressDone = String(progress.done);
    figure.dataset.progressTotal = String(progress.total);
  }
  if (!fetchesAhead(full) && shown.kind !== 'full') {
    // Not here (a device fetching only small files): the full photo comes when asked for.
    const bar = h('progress', {
      max: progress?.total ?? full.size,
      value: progress?.done ?? 0,
      'aria-label': 'Photo download',
      'data-file': full.id,
      hidden: !progress,
    });
    const fetch = h(
      'button',
      {
        type: 'button',
        class: 'quiet small',
        onclick: () => {
          bar.hidden = false;
          fetch.disabled = true;
          void readFull().then(show('full'), ctx.fail);
        },
      },
      `Show the full photo (${formatBytes(full.size)})`,
    );
    figure.append(h('figcaption', { class: 'fetch' }, fetch, ' ', bar));
  }
  return figure;
}
