/**
 * Types only (the service worker is one file that imports nothing at run time, so the page and
 * it share no code): how the service worker (media-sw.ts) reads a video from the node: over a MessagePort the page
 * hands it, whose other end is in the node's worker (worker/media-port.ts). The service worker
 * opens a read for one request, then pulls its bytes one piece (at most a 256 KiB chunk) at a
 * time, so neither side ever holds the file.
 *
 * The page and the service worker: the service worker asks a page it has no port for
 * (`{ minca: 'media-port?' }`), and the page answers with `{ minca: 'media-port' }` and a port;
 * the page also sends a new one whenever its node's worker changed.
 */

/** Where media URLs are, under the service worker's scope: `media/<space>/<post>/<file id>`. */
export type MediaPath = 'media/';

/** The service worker to the node. */
export type MediaAsk =
  /** Opens a read of the video `file` of post `post`, for a request with header `range`. */
  | { open: number; space: string; post: string; file: string; range: string | null }
  /** The next piece of read `pull`. */
  | { pull: number }
  /** The browser let go of read `cancel`. */
  | { cancel: number };

/** What a read gives: the status and the bytes `[start, end)` of a file of `size` bytes. */
export interface MediaHead {
  status: 200 | 206 | 416;
  size: number;
  start: number;
  end: number;
  mime: string;
}

/** The node to the service worker, about read `id`. */
export type MediaAnswer =
  | { id: number; head: MediaHead }
  | { id: number; piece: Uint8Array }
  | { id: number; done: true }
  /** The read could not open (`status` to answer) or broke off. */
  | { id: number; error: { status: number; message: string } };

/**
 * Between the page and the service worker: an ask for a port, a port given, and the page asking
 * to be taken (a reload that skipped the service worker leaves the page without it).
 */
export type PortMessage = { minca: 'media-port?' } | { minca: 'media-port' } | { minca: 'claim' };
