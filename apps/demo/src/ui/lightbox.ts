/**
 * A photo, large, over the page: a modal `<dialog>` (Escape or the button closes it, focus
 * goes back to the photo). It shows what is here at once and the full picture once read.
 */
import { h } from './dom.js';

export interface LightboxPicture {
  alt: string;
  /** Whatever is here already: the full picture, a thumbnail, or the placeholder. */
  src: string | undefined;
  width: number;
  height: number;
  /** The full picture's URL, read from the node (fetched when needed). */
  full: () => Promise<string>;
}

/** `opener`: where focus goes back to (found again, as the feed may have re-rendered). */
export function openLightbox(picture: LightboxPicture, opener: () => HTMLElement | null): void {
  const img = h('img', {
    src: picture.src,
    alt: picture.alt,
    width: picture.width,
    height: picture.height,
    class: 'lightbox-photo',
  });
  const status = h('p', { class: 'lightbox-status', role: 'status' });
  const close = h('button', { type: 'button', class: 'lightbox-close' }, 'Close');
  const dialog = h(
    'dialog',
    { class: 'lightbox', 'aria-label': picture.alt },
    h('div', { class: 'lightbox-frame' }, img, status),
    close,
  );
  close.addEventListener('click', () => dialog.close());
  // A click on the backdrop (outside the picture) closes it too.
  dialog.addEventListener('click', (event) => event.target === dialog && dialog.close());
  dialog.addEventListener('close', () => {
    dialog.remove();
    opener()?.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  close.focus();
  if (!picture.src?.startsWith('blob:') || img.dataset.kind !== 'full') {
    status.textContent = 'Loading the full photo…';
  }
  picture.full().then(
    (src) => {
      img.src = src;
      img.dataset.kind = 'full';
      status.textContent = '';
    },
    (error: Error) => (status.textContent = `The photo could not be loaded: ${error.message}`),
  );
}
