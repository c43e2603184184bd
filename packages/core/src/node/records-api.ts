/** `node.records`: reading and writing records, and their files. */
import type { BodyValue } from '../body.js';
import { MincaError } from '../errors.js';
import type { FileRef } from '../file-ref.js';
import type { FileInput } from '../files/file-input.js';
import type { NodeFiles } from '../files/node-files.js';
import type { ByteRange, OpenFile } from '../files/open-file.js';
import type { AddFileOptions, ReadFileOptions } from '../files/space-files.js';
import { isSystemCollection } from '../names.js';
import type { ListOptions, MincaRecord } from '../space/record-reads.js';
import type { SpaceChange } from '../space/space-view.js';
import type { SignOptions } from '../version-make.js';
import type { OpenSpaces } from './open-spaces.js';

export function recordsApi(spaces: OpenSpaces, files: NodeFiles) {
  return {
    /**
     * Writes a record: a new one, or a new version of `options.id` superseding its heads.
     * `collection` is an app's, such as `app.post`; `sys.*` is the space's own. Puts made while
     * an earlier write of the space is under way are written together, in one commit.
     */
    put: async <T extends BodyValue>(
      spaceId: string,
      collection: string,
      body: T,
      options: { id?: string } = {},
    ): Promise<MincaRecord<T>> => {
      return spaces.using(spaceId, async (space) => {
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
      });
    },
    /**
     * Writes several records in one go, as `put` would one after another, but sealed and signed
     * together (WebCrypto signs on every core), stored in one commit and told to listeners
     * once. `perSignature` over 1 signs the root of each run of that many versions (a batch
     * signature, spec 05 §3.6): far less signing, and about 33 bytes per doubling more per
     * version. An `id` given twice gets two versions, the second superseding the first.
     */
    putMany: async <T extends BodyValue>(
      spaceId: string,
      collection: string,
      items: ReadonlyArray<{ body: T; id?: string }>,
      options: SignOptions = {},
    ): Promise<Array<MincaRecord<T>>> => {
      return spaces.using(spaceId, async (space) => {
        if (isSystemCollection(collection)) {
          throw new MincaError(
            'invalid_name',
            `collection ${collection} is the space's own; apps write outside sys.*`,
          );
        }
        if (!Array.isArray(items)) throw new TypeError('items must be an array of { body, id? }');
        for (const item of items) {
          if (item?.body === null || item?.body === undefined) {
            throw new MincaError(
              'invalid_input',
              'a record body cannot be null; use records.delete',
            );
          }
        }
        return (await space.putMany(collection, items, options)) as Array<MincaRecord<T>>;
      });
    },
    /** The record as it stands, or `undefined`. */
    get: async <T extends BodyValue = BodyValue>(
      spaceId: string,
      collection: string,
      id: string,
    ): Promise<MincaRecord<T> | undefined> => {
      return spaces.using(spaceId, async (space) => {
        return (await space.get(collection, id)) as MincaRecord<T> | undefined;
      });
    },
    /** The records of a collection that stand. */
    list: async <T extends BodyValue = BodyValue>(
      spaceId: string,
      collection: string,
      options?: ListOptions,
    ): Promise<Array<MincaRecord<T>>> => {
      return spaces.using(spaceId, async (space) => {
        return (await space.list(collection, options)) as Array<MincaRecord<T>>;
      });
    },
    /** Deletes a record (a tombstone version). False when it did not stand. */
    delete: async (spaceId: string, collection: string, id: string): Promise<boolean> => {
      return spaces.using(spaceId, async (space) => {
        if (isSystemCollection(collection)) {
          throw new MincaError('invalid_name', `collection ${collection} is the space's own`);
        }
        return space.delete(collection, id);
      });
    },
    /**
     * Seals a file under a fresh key in 256 KiB chunks, kept in the space's store, and returns
     * the {@link FileRef} to put anywhere in a record body. A body names at most 16 files.
     *
     * `input` is the bytes, or a stream of them — a `ReadableStream`, an async (or plain)
     * iterable of `Uint8Array` pieces, or a `Blob`/`File` (whose size, type and name are taken)
     * — read a chunk at a time, so a file of any size goes in with a few MiB in memory. Give
     * `size` when a stream's length is known: it is then sealed in one pass. Rejects `aborted`
     * on `signal`, leaving nothing behind; a stream is cancelled when the add fails.
     */
    addFile: async (
      spaceId: string,
      input: FileInput,
      options: AddFileOptions = {},
    ): Promise<FileRef> => {
      return spaces.using(spaceId, async (space) => {
        return (await files.of(space)).add(input, options);
      });
    },
    /**
     * The bytes of a file a record here names (of `range` only, when given: see `openFile`):
     * from this node, else from connected peers one
     * after another, else from the node's other sources (mirrors), checking every chunk. When
     * nobody has it, it waits, asking again when records change, a peer connects, and every
     * 15 s. Rejects `invalid_input` for a file no record here names or one that won't open as
     * named, `closed` when the space closes, `aborted` on `signal`.
     */
    readFile: async (
      spaceId: string,
      ref: FileRef,
      options: ReadFileOptions & { range?: ByteRange } = {},
    ): Promise<Uint8Array> => {
      return spaces.using(spaceId, async (space) => {
        const spaceFiles = await files.of(space);
        if (options.range === undefined) return spaceFiles.read(ref, options);
        const { range, ...rest } = options;
        const file = await spaceFiles.open(ref);
        try {
          return await file.read(range, rest);
        } finally {
          await file.close();
        }
      });
    },
    /**
     * Opens a file a record here names for reading by range, as a video player does:
     * `{ id, size, mime, name, stream(range?), chunks(range?), read(range?), close() }`, a range
     * being `{ offset?, length? }`. Only the chunks covering a range are read — from here, else
     * fetched as `readFile` fetches, in order of need, a window of 8 MiB ahead at most — and
     * each is checked and opened as it comes. `stream` gives a `ReadableStream` (e.g. for
     * `new Response(...)` in a service worker). Until `close()`, the file is never dropped for
     * the limits. Rejects as `readFile` does for a file not named or not as named.
     */
    openFile: async (spaceId: string, ref: FileRef): Promise<OpenFile> => {
      return spaces.using(spaceId, async (space) => {
        return (await files.of(space)).open(ref);
      });
    },
    /** Calls `listener` after each change to the space's records. Returns the unsubscribe. */
    subscribe: async (
      spaceId: string,
      listener: (change: SpaceChange) => void,
    ): Promise<() => void> => {
      // A listener keeps the space open: it would not hear of changes to a closed one.
      return spaces.using(spaceId, async (space) => {
        const unsubscribe = space.subscribe(listener);
        const release = spaces.keepOpen(spaceId);
        return () => {
          unsubscribe();
          release();
        };
      });
    },
  };
}

export type RecordsApi = ReturnType<typeof recordsApi>;
