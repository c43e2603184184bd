/**
 * Writing a post: text, a photo or a video, or text and one of them. A photo is made ready here
 * (`prepareImage`: its size, a ThumbHash placeholder and a 320 px thumbnail), a video too
 * (`prepareVideo`: its size and a poster), then the worker adds their files.
 */
import { prepareImage } from '@minca/std/browser';
import type { NodeClient } from '../node-client.js';
import { h } from './dom.js';
import { prepareVideo } from './prepare-video.js';

const isVideo = (file: File) => file.type.startsWith('video/');

export function composer(
  client: NodeClient,
  space: string,
  placeholder: () => string,
): HTMLFormElement {
  const error = h('p', { class: 'error', role: 'alert' });
  const text = h('textarea', { id: 'post-text', rows: 2, placeholder: placeholder() });
  // The space's name is known after the first render: the placeholder follows it.
  text.addEventListener('focus', () => (text.placeholder = placeholder()));
  const photo = h('input', {
    id: 'post-photo',
    type: 'file',
    accept: 'image/*,video/mp4,video/webm',
    class: 'file-input',
  });
  const preview = h('span', { class: 'chosen', id: 'photo-chosen' });
  let previewUrl: string | undefined;
  const clearPhoto = () => {
    photo.value = '';
    if (previewUrl) URL.revokeObjectURL(previewUrl);
    previewUrl = undefined;
    preview.replaceChildren();
  };
  photo.addEventListener('change', () => {
    const file = photo.files?.[0];
    if (!file) return clearPhoto();
    if (previewUrl) URL.revokeObjectURL(previewUrl);
    previewUrl = URL.createObjectURL(file);
    const what = isVideo(file) ? 'video' : 'photo';
    preview.replaceChildren(
      isVideo(file)
        ? h('video', {
            src: previewUrl,
            muted: true,
            playsinline: true,
            preload: 'metadata',
            'aria-label': `Chosen video: ${file.name}`,
            class: 'preview',
          })
        : h('img', { src: previewUrl, alt: `Chosen photo: ${file.name}`, class: 'preview' }),
      h('button', { type: 'button', class: 'quiet small', onclick: clearPhoto }, `Remove ${what}`),
    );
  });
  const submit = h('button', { type: 'submit' }, 'Post');
  const form = h(
    'form',
    {
      class: 'composer card',
      id: 'composer',
      'aria-label': 'New post',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        error.textContent = '';
        const file = photo.files?.[0];
        if (!text.value.trim() && !file) {
          error.textContent = 'Write something or add a photo or a video.';
          return text.focus();
        }
        submit.disabled = true;
        try {
          const video = file && isVideo(file) ? await prepareVideo(file) : undefined;
          const picture =
            file && !video
              ? { image: await prepareImage(file), name: file.name || 'photo' }
              : undefined;
          await client.call('post', space, text.value, picture, video);
          text.value = '';
          clearPhoto();
          text.focus();
        } catch (e) {
          error.textContent = (e as Error).message;
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('label', { for: 'post-text', class: 'visually-hidden' }, 'Write a post'),
    text,
    h(
      'div',
      { class: 'composer-row' },
      h('label', { for: 'post-photo', class: 'button quiet' }, 'Add a photo or video'),
      photo,
      preview,
      submit,
    ),
    error,
  );
  return form;
}
