// A write whose path is pruned while it is being made (another app removing the folder's last
// file) walks the path again and lands. Chromium's own handles show the race only now and then
// (chromium.test.ts, "a write into a folder being pruned lands"); these stand-ins make it happen
// every time, at the step where it happens: a folder gone between being made and making the
// next one in it.
import { isMincaError } from '@minca/core';
import { describe, expect, it } from 'vitest';
import { handleFolder } from '../src/handle-folder.js';

const notFound = () => Object.assign(new Error('gone'), { name: 'NotFoundError' });
const typeMismatch = () => Object.assign(new Error('a file'), { name: 'TypeMismatchError' });

/** A folder handle in memory, enough for writing and reading files; `removed` once pruned. */
class Folder {
  readonly entries = new Map<string, Folder | Uint8Array>();
  removed = false;
  /** Runs before the next folder is made in this one; once, unless `alwaysBeforeMaking`. */
  beforeMaking: (() => void) | undefined;
  alwaysBeforeMaking = false;

  async getDirectoryHandle(name: string, options?: { create?: boolean }) {
    if (this.removed) throw notFound();
    let entry = this.entries.get(name);
    if (!entry && options?.create) {
      const hook = this.beforeMaking;
      if (!this.alwaysBeforeMaking) this.beforeMaking = undefined;
      hook?.();
      if (this.removed) throw notFound();
      entry = new Folder();
      this.entries.set(name, entry);
    }
    if (!(entry instanceof Folder)) throw entry ? typeMismatch() : notFound();
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

  /** A root holding `a/old`, whose `a` goes with its last file just as a folder is made in it. */
  async function pruning(always: boolean) {
    const root = new Folder();
    const fs = handleFolder(root as unknown as FileSystemDirectoryHandle);
    await fs.writeFile(['a', 'old'], new Uint8Array([0]), { sync: false });
    const a = root.entries.get('a') as Folder;
    a.alwaysBeforeMaking = always;
    a.beforeMaking = () => {
      a.removed = true;
      root.entries.delete('a');
    };
    return { root, fs };
  }

  it('makes a folder whose path is pruned while it is made', async () => {
    const { root, fs } = await pruning(false);
    await fs.makeFolder(['a', 'b', 'c']);
    const a = root.entries.get('a') as Folder;
    const b = a.entries.get('b') as Folder;
    expect(a.removed).toBe(false);
    expect(b.entries.get('c')).toBeInstanceOf(Folder);
  });

  it('gives up with a storage error when the path is pruned every time', async () => {
    const { root, fs } = await pruning(true);
    // Each walk makes `a` anew; the folder pruned is the one the hook was set on, so prune
    // every new `a` too.
    const original = root.getDirectoryHandle.bind(root);
    root.getDirectoryHandle = async (name, options) => {
      const made = await original(name, options);
      made.alwaysBeforeMaking = true;
      made.beforeMaking = () => {
        made.removed = true;
        root.entries.delete(name);
      };
      return made;
    };
    const error = await fs.makeFolder(['a', 'b']).catch((e: unknown) => e);
    expect(isMincaError(error) && error.code).toBe('storage');
    const written = await fs.writeFile(['a', 'b', 'f'], new Uint8Array([1])).catch((e) => e);
    expect(isMincaError(written) && written.code).toBe('storage');
  });

  it('refuses to make a folder where a file is, with a storage error', async () => {
    const root = new Folder();
    const fs = handleFolder(root as unknown as FileSystemDirectoryHandle);
    await fs.writeFile(['a'], new Uint8Array([0]), { sync: false });
    const made = await fs.makeFolder(['a', 'b']).catch((e: unknown) => e);
    expect(isMincaError(made) && made.code).toBe('storage');
    expect(String(made)).toMatch(/making folder a\/b/);
    const written = await fs.writeFile(['a', 'b', 'f'], new Uint8Array([1])).catch((e) => e);
    expect(isMincaError(written) && written.code).toBe('storage');
  });
});
