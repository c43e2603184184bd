import { describe, expect, it } from 'vitest';
import { randomId } from '../src/ids.js';
import { SigningKey } from '../src/keys.js';
import { LruBodyCache } from '../src/lru.js';
import { randomKey } from '../src/seal.js';
import { Store } from '../src/store.js';
import { cursorOf, PULL_PAGE_BYTES, pullPage } from '../src/sync/collection-pull.js';
import { VERS_MESSAGE_BYTES } from '../src/sync/messages.js';
import { outgoing } from '../src/sync/outgoing.js';
import { createVersions, type Version } from '../src/version.js';
import { fakeStores } from './fake-adapter.js';
import { errorCode } from './version-fixture.js';

const key = SigningKey.generate();
const spaceKey = randomKey();
const space = randomId();

/** `n` versions of `collection`, a body of `bytes` each, one millisecond apart. */
const versions = (collection: string, n: number, bytes = 8) =>
  createVersions(
    Array.from({ length: n }, (_, i) => ({
      space,
      collection,
      record: randomId(),
      supersedes: [],
      timestamp: 1_700_000_000_000 + i,
      files: [],
      body: { text: 'x'.repeat(bytes) },
    })),
    spaceKey,
    key,
  );

/** A store holding `held`, over a fake adapter; `adapter` to change what it holds under it. */
async function storeOf(held: Version[]) {
  const adapter = await fakeStores().open('s');
  const store = await Store.open(adapter);
  await store.commit({ versions: held });
  return { store, adapter };
}

/**
 * 40 posts in a store opened again (as after a restart: none of them cached) with a body cache
 * of `capacity`.
 */
async function cachedPosts(capacity: number) {
  const posts = await versions('app.post', 40);
  const { adapter } = await storeOf(posts);
  const cache = new LruBodyCache(capacity);
  return { posts, cache, store: await Store.open(adapter, { bodyCache: cache }) };
}

const sent = (versions: Version[]) =>
  versions.map((v) => ({ id: v.id, collection: v.collection, bytes: v.bytes }));

describe('what a peer is sent', () => {
  it('is the stored bytes of each id held, in order, each with its collection', async () => {
    const posts = await versions('app.post', 3);
    const notes = await versions('app.note', 2);
    const { store } = await storeOf([...posts, ...notes]);
    const ids = [notes[1]!.id, posts[0]!.id, 'ab'.repeat(32), notes[0]!.id, posts[2]!.id];
    expect(await outgoing(store, ids)).toEqual(sent([notes[1]!, posts[0]!, notes[0]!, posts[2]!]));
  });

  it('is never bytes that do not hash to their id, even read from the store', async () => {
    const [v] = await versions('app.post', 1);
    const { adapter } = await storeOf([v!]);
    const changed = v!.bytes.slice();
    changed[changed.length - 1]! ^= 1;
    await adapter.putVersion(v!.id, changed);
    // Opened again, as after a restart: nothing of the version is cached.
    const reopened = await Store.open(adapter);
    expect(await errorCode(() => outgoing(reopened, [v!.id]))).toBe('corrupt');
  });

  it('answers a pull four messages at a time, in the order of the sync set, from a cursor', async () => {
    // Bodies of 1 KiB: a page's worth is fewer than the 800 held.
    const posts = await versions('app.post', 800, 1024);
    const { store } = await storeOf(posts);
    const first = await pullPage(store, 'app.post', undefined);
    const size = first.reduce((n, v) => n + v.bytes.length + 8, 0);
    expect(PULL_PAGE_BYTES).toBe(4 * VERS_MESSAGE_BYTES);
    expect(size).toBeLessThanOrEqual(PULL_PAGE_BYTES);
    expect(size).toBeGreaterThan(3 * VERS_MESSAGE_BYTES);
    expect(first.length).toBeLessThan(posts.length);
    expect(first).toEqual(sent(posts.slice(0, first.length)));

    const next = await pullPage(store, 'app.post', cursorOf(posts[first.length - 1]!));
    expect(next[0]).toEqual(sent([posts[first.length]!])[0]);
    expect(await pullPage(store, 'app.post', cursorOf(posts.at(-1)!))).toEqual([]);
  });

  it('reads for a peer past the body cache what the cache could not hold', async () => {
    const { posts, store, cache } = await cachedPosts(3);
    // A collection larger than the cache: its pages are read past it.
    expect(await pullPage(store, 'app.post', undefined)).toEqual(sent(posts));
    expect(cache.size).toBe(0);
    // A want of as many as it holds is read through it and kept: post 2 the one used longest ago.
    const few = [posts[2]!, posts[1]!, posts[0]!];
    const wanted = few.map((v) => v.id);
    expect(await outgoing(store, wanted)).toEqual(sent(few));
    expect(few.every((v) => cache.peek(v.id) !== undefined)).toBe(true);
    // More than it holds neither adds bodies nor counts the cached ones as used...
    const four = posts.slice(0, 4);
    const fourIds = four.map((v) => v.id);
    expect(await outgoing(store, fourIds)).toEqual(sent(four));
    expect(cache.size).toBe(3);
    // ...so the next body kept pushes out post 2, not post 0 (which that read had last).
    await outgoing(store, [posts[3]!.id]);
    expect([0, 1, 2, 3].map((i) => cache.peek(posts[i]!.id) !== undefined)).toEqual([
      true,
      true,
      false,
      true,
    ]);
  });

  it('keeps the pages of a collection the body cache can hold', async () => {
    const { posts, store, cache } = await cachedPosts(40);
    expect(await pullPage(store, 'app.post', undefined)).toEqual(sent(posts));
    expect(posts.every((v) => cache.peek(v.id) !== undefined)).toBe(true);
  });
});
