/**
 * Pictures a space view shows, as object URLs: read once from the worker (which fetches them
 * from peers when they are not here) and kept while the view is open, so a re-render of the
 * feed shows at once what was shown before. Revoked when the view closes.
 */
import { placeholderUrl } from '@minca/std';
import type { NodeClient } from '../node-client.js';
import type { NodeApi } from '../protocol.js';

type What = Parameters<NodeApi['readPicture']>[1];

/**
 * When a picture this device fetches ahead is read if still not here: twice the node's wait
 * after records change before it fetches ahead (spec 05 §16.6.7), ms.
 */
export const READ_AFTER_MS = 4000;

export class Pictures {
  readonly #ready = new Map<string, string>();
  readonly #reading = new Map<string, Promise<string>>();
  readonly #placeholders = new Map<string, string | undefined>();
  readonly #later = new Map<string, ReturnType<typeof setTimeout>>();
  #closed = false;

  constructor(
    private readonly client: NodeClient,
    private readonly space: string,
  ) {}

  /** The URL of file `id`, if it was read already. */
  ready(id: string): string | undefined {
    return this.#ready.get(id);
  }

  /** Reads file `id` (`what` says which picture it is) and gives its URL. */
  read(id: string, what: What, mime: string): Promise<string> {
    let reading = this.#reading.get(id);
    if (!reading) {
      reading = this.client.call('readPicture', this.space, what).then((bytes) => {
        const url = URL.createObjectURL(new Blob([bytes.slice()], { type: mime }));
        if (this.#closed) URL.revokeObjectURL(url);
        else this.#ready.set(id, url);
        return url;
      });
      this.#reading.set(id, reading);
      reading.catch(() => this.#reading.delete(id));
    }
    return reading;
  }

  /**
   * Runs `read` in `ms` unless it was asked for already: once per file while the view is open.
   * Reading a file the node fetches ahead anyway, a little after it was named, lets the
   * node's own fetch (and the host's) go first.
   */
  later(id: string, ms: number, read: () => void): void {
    if (this.#later.has(id) || this.#reading.has(id)) return;
    this.#later.set(
      id,
      setTimeout(() => {
        if (!this.#closed && !this.#reading.has(id)) read();
      }, ms),
    );
  }

  /** The ThumbHash placeholder as a data URL (kept, since decoding it costs a little). */
  placeholder(id: string, hash: Uint8Array | undefined): string | undefined {
    if (!this.#placeholders.has(id))
      this.#placeholders.set(id, placeholderUrl({ placeholder: hash }));
    return this.#placeholders.get(id);
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#later.values()) clearTimeout(timer);
    for (const url of this.#ready.values()) URL.revokeObjectURL(url);
    this.#ready.clear();
  }
}
