/** `node.files`: files as stores and mirrors see them, sealed bytes checked against their ids. */
import type { NodeFiles } from '../files/node-files.js';
import type { FileSourceProvider } from '../files/source.js';
import type { SpaceFiles } from '../files/space-files.js';
import type { OpenSpaces } from './open-spaces.js';

export function filesApi(spaces: OpenSpaces, files: NodeFiles) {
  /** Runs `work` with the files of space `id` (held without its key too), the space open. */
  const of = <T>(id: string, work: (files: SpaceFiles) => Promise<T> | T): Promise<T> =>
    spaces.usingView(id, async (space) => work(await files.of(space)));
  return {
    /** Adds sources tried after peers, such as mirrors. Returns the removal. */
    addSources: (provider: FileSourceProvider): (() => void) => files.addSources(provider),
    /** Ids of the files held whole in the space (one held without its key too). */
    whole: async (spaceId: string): Promise<string[]> => of(spaceId, (f) => f.whole()),
    /** Ids of the files the space's standing records name. */
    named: async (spaceId: string): Promise<string[]> =>
      of(spaceId, async (f) => [...(await f.named())]),
    /** Sealed bytes of every file chunk the space holds (a holder counts them, spec 06 §3). */
    bytes: async (spaceId: string): Promise<number> => of(spaceId, (f) => f.heldBytes()),
    /** A file's chunk list as stored, if held. */
    list: async (spaceId: string, id: string): Promise<Uint8Array | undefined> =>
      of(spaceId, (f) => f.list(id)?.bytes),
    /** Sealed chunk `n` of a file, if held. */
    chunk: async (spaceId: string, id: string, n: number): Promise<Uint8Array | undefined> =>
      of(spaceId, (f) => f.chunk(id, n)),
    /** Calls `listener` when the files held whole or named in the space may have changed. */
    subscribe: (spaceId: string, listener: (change: { space: string }) => void): (() => void) =>
      files.subscribe(spaceId, listener),
  };
}

export type FilesApi = ReturnType<typeof filesApi>;
