/**
 * A post's video: the poster first (its ThumbHash placeholder from the record, then the small
 * picture), and the video itself played from the service worker by range, so it starts before
 * its file is here and a seek reads where it lands. A video this device fetches ahead (within
 * the `ahead` limit) loads its first frames at once; a larger one is read only as it plays.
 * One element per video while the space is open, so a re-render of the feed doesn't stop it.
 */
import { formatBytes } from '../file-limits.js';
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

/** "1:05", "1:02:07". */
function clock(ms: number): string {
  const s = Math.round(ms / 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  const [h, m] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60)];
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
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
  // How long and how large, before it plays (a video read as it plays shows no length yet).
  const about = [
    video.duration !== undefined && clock(video.duration),
    formatBytes(video.file.size),
  ];
  const figure = h(
    'figure',
    { class: 'video-frame', 'data-file': video.file.id },
    element,
    h('figcaption', { class: 'video-about muted' }, about.filter(Boolean).join(' · ')),
  );
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
