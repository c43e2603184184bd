/** `node.records`: reading and writing records, and their files. */
import type { BodyValue } from '../body.js';
import { MincaError } from '../errors.js';
import type { FileRef } from '../file-ref.js';
import type { NodeFiles } from '../files/node-files.js';
import type { AddFileOptions, ReadFileOptions } from '../files/space-files.js';
import { isSystemCollection } from '../names.js';
import type { ListOptions, MincaRecord } from '../space/open-space.js';
import type { SpaceChange } from '../space/space-view.js';
import type { OpenSpaces } from './open-spaces.js';

export function recordsApi(spaces: OpenSpaces, files: NodeFiles) {
  return {
    /**
     * Writes a record: a new one, or a new version of `options.id` superseding its heads.
     * `collection` is an app's, such as `app.post`; `sys.*` is the space's own.
     */
    put: async <T extends BodyValue>(
      spaceId: string,
      collection: string,
      body: T,
      options: { id?: string } = {},
    ): Promise<MincaRecord<T>> => {
      const space = await spaces.member(spaceId);
      if (isSystemCollection(collection)) {
        throw new MincaError(
          'invalid_name',
          `collection ${collection} is the space's own; apps write outside sys.*`,
        );
      }
      if (body === null || body === undefined) {
        throw new MincaError('invalid_input', 'a record body cannot be null; use records.delete');
      }
      return (await space.put(collection, body, options.id)) as MincaRecord<T>;
    },
    /** The record as it stands, or `undefined`. */
    get: async <T extends BodyValue = BodyValue>(
      spaceId: string,
      collection: string,
      id: string,
    ): Promise<MincaRecord<T> | undefined> => {
      const space = await spaces.member(spaceId);
      return (await space.get(collection, id)) as MincaRecord<T> | undefined;
    },
    /** The records of a collection that stand. */
    list: async <T extends BodyValue = BodyValue>(
      spaceId: string,
      collection: string,
      options?: ListOptions,
    ): Promise<Array<MincaRecord<T>>> => {
      const space = await spaces.member(spaceId);
      return (await space.list(collection, options)) as Array<MincaRecord<T>>;
    },
    /** Deletes a record (a tombstone version). False when it did not stand. */
    delete: async (spaceId: string, collection: string, id: string): Promise<boolean> => {
      const space = await spaces.member(spaceId);
      if (isSystemCollection(collection)) {
        throw new MincaError('invalid_name', `collection ${collection} is the space's own`);
      }
      return space.delete(collection, id);
    },
    /**
     * Seals `bytes` under a fresh key in 256 KiB chunks, kept in the space's store, and returns
     * the {@link FileRef} to put anywhere in a record body. A body names at most 16 files.
     */
    addFile: async (
      spaceId: string,
      bytes: Uint8Array,
      options: AddFileOptions = {},
    ): Promise<FileRef> => {
      const space = await spaces.member(spaceId);
      return (await files.of(space)).add(bytes, options);
    },
    /**
     * The bytes of a file a record here names: from this node, else from connected peers one
     * after another, else from the node's other sources (mirrors), checking every chunk. When
     * nobody has it, it waits, asking again when records change, a peer connects, and every
     * 15 s. Rejects `invalid_input` for a file no record here names or one that won't open as
     * named, `closed` when the space closes, `aborted` on `signal`.
     */
    readFile: async (
      spaceId: string,
      ref: FileRef,
      options: ReadFileOptions = {},
    ): Promise<Uint8Array> => {
      const space = await spaces.member(spaceId);
      return (await files.of(space)).read(ref, options);
    },
    /** Calls `listener` after each change to the space's records. Returns the unsubscribe. */
    subscribe: async (
      spaceId: string,
      listener: (change: SpaceChange) => void,
    ): Promise<() => void> => {
      const space = await spaces.member(spaceId);
      return space.subscribe(listener);
    },
  };
}

export type RecordsApi = ReturnType<typeof recordsApi>;
