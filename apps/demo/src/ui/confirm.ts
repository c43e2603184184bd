/**
 * Asking before something that can't be undone (removing someone, forgetting this browser's
 * copy): a modal dialog that says what will happen, with the action named on its button and
 * "Cancel" focused first, so Enter or Escape never does it by accident.
 */
import { h } from './dom.js';
import './home.css';

export interface Confirmation {
  title: string;
  /** What happens, in plain words: one paragraph each. */
  says: string[];
  /** The button that does it: "Remove Dee". */
  action: string;
  /** Where focus goes back to when the dialog closes. */
  opener?: HTMLElement;
}

/** Resolves to true when the person confirms. */
export function confirmAction({ title, says, action, opener }: Confirmation): Promise<boolean> {
  return new Promise((resolve) => {
    let confirmed = false;
    const yes = h('button', { type: 'button', class: 'danger' }, action);
    const no = h('button', { type: 'button', class: 'quiet' }, 'Cancel');
    const dialog = h(
      'dialog',
      { class: 'sheet', 'aria-labelledby': 'confirm-title', id: 'confirm' },
      h('h2', { id: 'confirm-title' }, title),
      ...says.map((text) => h('p', {}, text)),
      h('div', { class: 'actions' }, no, yes),
    );
    yes.addEventListener('click', () => {
      confirmed = true;
      dialog.close();
    });
    no.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      dialog.remove();
      opener?.focus();
      resolve(confirmed);
    });
    document.body.append(dialog);
    dialog.showModal();
    no.focus();
  });
}
