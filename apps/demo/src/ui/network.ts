/**
 * The header's network state and the button to work offline. Offline by choice or because the
 * browser is: posts wait in this browser and go when it is back.
 */
import type { SyncView } from '../protocol.js';
import { h } from './dom.js';

export class NetworkView {
  /** The person chose to work offline (kept per tab). */
  #offline = sessionStorage.getItem('minca-demo:offline') === '1';
  #sync: SyncView | undefined;
  #inSpace = false;

  constructor(
    private readonly element: HTMLElement,
    private readonly changed: (online: boolean) => void,
  ) {
    addEventListener('online', () => this.#tell());
    addEventListener('offline', () => this.#tell());
    this.show();
  }

  get online(): boolean {
    return navigator.onLine && !this.#offline;
  }

  /** A space is open (its sync tells whether the host is connected), or none. */
  space(sync: SyncView | undefined, open: boolean): void {
    this.#sync = sync;
    this.#inSpace = open;
    this.show();
  }

  #tell(): void {
    this.show();
    this.changed(this.online);
  }

  readonly #words = h('span', { id: 'network-words', role: 'status' });
  readonly #button = h('button', { type: 'button', class: 'quiet small', id: 'toggle-offline' });

  show(): void {
    if (!this.#button.isConnected) {
      this.#button.addEventListener('click', () => {
        this.#offline = !this.#offline;
        sessionStorage.setItem('minca-demo:offline', this.#offline ? '1' : '0');
        this.#tell();
      });
      this.element.replaceChildren(
        h('span', { class: 'dot', 'aria-hidden': 'true' }),
        this.#words,
        this.#button,
      );
    }
    const online = this.online;
    const connected = this.#sync?.connected ?? false;
    this.element.dataset.state = online
      ? this.#inSpace && !connected
        ? 'connecting'
        : 'online'
      : 'offline';
    const [wide, words] = !online
      ? ['', 'Offline']
      : !this.#inSpace
        ? ['', 'Online']
        : connected
          ? ['Online · ', 'connected']
          : ['Online · ', 'connecting…'];
    this.#words.replaceChildren(h('span', { class: 'wide-only' }, wide), words);
    this.#button.setAttribute('aria-pressed', String(this.#offline));
    this.#button.textContent = this.#offline ? 'Go online' : 'Go offline';
  }
}
