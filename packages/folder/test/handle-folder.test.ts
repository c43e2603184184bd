// A write whose path is pruned while it is being made (another app removing the folder's last
// file) walks the path again and lands. Chromium's own handles show the race only now and then
// (chromium.test.ts, "a write into a folder being pruned lands"); these stand-ins make it happen
// every time, at the step where it happens: a folder gone between being made and making the
// next one in it.
import { describe, expect, it } from 'vitest';
import { handleFolder } from '../src/handle-folder.js';

const notFound = () => Object.assign(new Error('gone'), { name: 'NotFoundError' });

/** A folder handle in memory, enough for writing and reading files; `removed` once pruned. */
class Folder {
  readonly entries = new Map<string, Folder | Uint8Array>();
  removed = false;
  /** Runs once, before the next folder is made in this one. */
  beforeMaking: (() => void) | undefined;

  async getDirectoryHandle(name: string, options?: { create?: boolean }) {
    if (this.removed) throw notFound();
    let entry = this.entries.get(name);
    if (!entry && options?.create) {
      const hook = this.beforeMaking;
      this.beforeMaking = undefined;
      hook?.();
      if (this.removed) throw notFound();
      entry = new Folder();
      this.entries.set(name, entry);
    }
    if (!(entry instanceof Folder)) throw notFound();
    return entry;
  }

  async getFileHandle(name: string, options?: { create?: boolean }) {
    if (this.removed) throw notFound();
    if (!this.entries.has(name)) {
      if (!options?.create) throw notFound();
      this.entries.set(name, new Uint8Array(0));
    }
    return {
      getFile: async () => new Blob([this.entries.get(name) as Uint8Array<ArrayBuffer>]),
      createWritable: async () => {
        let written = new Uint8Array(0);
        return {
          write: async (bytes: Uint8Array) => {
            written = bytes.slice();
          },
          close: async () => {
            if (this.removed) throw notFound();
            this.entries.set(name, written);
          },
          abort: async () => {},
        };
      },
    };
  }
}

describe('handleFolder', () => {
  it('makes a path pruned while it is made again, and the write lands', async () => {
    const root = new Folder();
    const fs = handleFolder(root as unknown as FileSystemDirectoryHandle);
    await fs.writeFile(['a', 'old'], new Uint8Array([0]), { sync: false });
    const a = root.entries.get('a') as Folder;
    // Just as `a/b` is to be made, `a` goes with its last file.
    a.beforeMaking = () => {
      a.removed = true;
      root.entries.delete('a');
    };
    await fs.writeFile(['a', 'b', 'new'], new Uint8Array([1]), { sync: false });
    expect(await fs.readFile(['a', 'b', 'new'])).toEqual(new Uint8Array([1]));
  });
});
