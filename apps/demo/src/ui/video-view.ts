/**
 * A post's video: the poster first (its ThumbHash placeholder from the record, then the small
 * picture), and the video itself played from the service worker by range, so it starts before
 * its file is here and a seek reads where it lands. A video this device fetches ahead (within
 * the `ahead` limit) loads its first frames at once; a larger one is read only as it plays.
 * One element per video while the space is open, so a re-render of the feed doesn't stop it.
 */
import type { PostView, VideoView } from '../protocol.js';
import { h } from './dom.js';
import { useMedia, videoUrl } from './media.js';
import { READ_AFTER_MS } from './pictures.js';
import type { PostContext } from './post-view.js';

/** The video elements of an open space, by post and file. */
export class Videos {
  readonly #shown = new Map<string, HTMLElement>();

  get(key: string): HTMLElement | undefined {
    return this.#shown.get(key);
  }

  set(key: string, figure: HTMLElement): void {
    this.#shown.set(key, figure);
  }

  /** Stops every video, and the reads under way. */
  close(): void {
    for (const figure of this.#shown.values()) {
      const video = figure.querySelector('video');
      if (!video) continue;
      video.pause();
      video.removeAttribute('src');
      video.load();
    }
    this.#shown.clear();
  }
}

export function renderVideo(
  post: PostView,
  video: VideoView,
  ctx: PostContext,
  name: string,
): HTMLElement {
  const key = `${post.id}:${video.file.id}`;
  const shown = ctx.videos.get(key);
  if (shown) return shown;
  const { pictures } = ctx;
  const poster = video.poster;
  const fetchesAhead = video.file.whole || video.file.size <= ctx.ahead;
  const element = h('video', {
    class: 'video',
    controls: true,
    playsinline: true,
    preload: fetchesAhead ? 'metadata' : 'none',
    width: video.width,
    height: video.height,
    'aria-label': `Video by ${name}`,
    poster:
      poster &&
      (pictures.ready(poster.file.id) ?? pictures.placeholder(poster.file.id, poster.placeholder)),
  });
  const figure = h('figure', { class: 'video-frame', 'data-file': video.file.id }, element);
  if (poster && !pictures.ready(poster.file.id)) {
    // The poster is a small picture: read when here, or once the node's fetch ahead had a go.
    const read = () =>
      pictures
        .read(poster.file.id, { post: post.id, part: 'poster' }, poster.mime)
        .then((src) => (element.poster = src));
    if (poster.file.whole) void read().catch(ctx.fail);
    else if (poster.file.size <= ctx.ahead)
      pictures.later(poster.file.id, READ_AFTER_MS, () => void read().catch(() => undefined));
  }
  void useMedia(ctx.client).then((ok) => {
    if (ok) element.src = videoUrl(ctx.space, post.id, video.file.id);
    else {
      figure.append(
        h(
          'figcaption',
          { class: 'fetch' },
          'This browser gives the page no service worker: videos cannot play here.',
        ),
      );
    }
  });
  ctx.videos.set(key, figure);
  return figure;
}
