/**
 * A data folder account on a later visit: the folder's permission is asked for again only from
 * a click. Resolves once the folder may be used.
 */
import { allowDataFolder, pickDataFolder, rememberedDataFolder } from '@minca/folder';
import { h } from './dom.js';

export async function ensureFolder(main: HTMLElement): Promise<void> {
  const remembered = await rememberedDataFolder();
  if (remembered?.permission === 'granted') return;
  const error = h('p', { class: 'error', role: 'alert' });
  await new Promise<void>((resolve) => {
    const button = h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          try {
            if (remembered ? await allowDataFolder(remembered.handle) : await pickDataFolder())
              resolve();
            else error.textContent = 'The folder was not allowed.';
          } catch (e) {
            error.textContent = (e as Error).message;
          }
        },
      },
      remembered ? 'Allow the data folder' : 'Pick the data folder',
    );
    main.replaceChildren(
      h(
        'section',
        { class: 'narrow card' },
        h('h2', {}, 'Your data folder'),
        h('p', {}, 'This account keeps its data in a folder. The browser asks before using it.'),
        button,
        error,
      ),
    );
    button.focus();
  });
}
