/**
 * A holder without the space key (a host or carrier) mirrors with version bytes alone: it pulls
 * from one blob store and pushes to another, and a member reads the records from the second.
 */
import { describe, expect, it } from 'vitest';
import { MirrorState } from '../../src/mirror/mirror-state.ts';
import { SpaceMirror } from '../../src/mirror/space-mirror.ts';
import { HeldSpace } from '../../src/space/held-space.ts';
import { Store } from '../../src/store.ts';
import { fakeBlobStore, fakeStores } from '../fake-adapter.ts';
import { fingerprint } from '../sync-helpers.ts';
import { mirroredNode } from './mirror-helpers.ts';

describe('mirroring without the space key', () => {
  it('relays a space from one bucket to another through a store of ciphertext', async () => {
    const [first, second] = [fakeBlobStore(), fakeBlobStore()];
    const a = await mirroredNode([first]);
    const { id: space } = await a.node.spaces.create();
    const b = await mirroredNode([second]);
    await a.node.spaces.setRole(space, b.node.did, 'writer');
    const ticket = await a.node.spaces.share(space, b.node.did);
    for (let i = 0; i < 20; i++) await a.node.records.put(space, 'app.post', { i });
    const print = await fingerprint(a.node, space);
    await a.node.close();

    // The holder: a store, two mirror states, no key. It keeps what is signed and of this
    // space (the mirror checks both); who may write is the space's to judge, not the holder's.
    const stores = fakeStores();
    const store = await Store.open(await stores.open(`spaces/${space}`));
    const entry = { id: space, access: a.node.did, offeredBy: a.node.did, added: 0 };
    const held = await HeldSpace.open(entry, store, {});
    const options = { pushDelayMs: 5000, pullIntervalMs: 0 };
    const from = SpaceMirror.start(
      held,
      undefined,
      await MirrorState.open(await stores.open(`mirrors/${space}/0`)),
      { index: 0, store: first, ...options },
    );
    const to = SpaceMirror.start(
      held,
      undefined,
      await MirrorState.open(await stores.open(`mirrors/${space}/1`)),
      { index: 1, store: second, ...options },
    );
    await from.sync();
    expect(store.versionCount()).toBe(21);
    await to.sync();
    await from.close();
    await to.close();

    await b.node.spaces.join(ticket);
    await b.node.spaces.syncMirrors(space);
    expect(await fingerprint(b.node, space)).toBe(print);
    expect(await b.node.records.list(space, 'app.post')).toHaveLength(20);
    await b.node.close();
  });
});
