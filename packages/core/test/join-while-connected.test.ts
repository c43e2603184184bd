import { describe, expect, it } from 'vitest';
import { connect, converged, newNode, until } from './sync-helpers.js';

const linked = async (node: Awaited<ReturnType<typeof newNode>>, space: string) =>
  (await node.spaces.status(space)).peers.some((p) => p.level);

describe('joining a space while connected', () => {
  it('shares it with a peer that named it before we held it', async () => {
    const [owner, host] = [await newNode(), await newNode()];
    connect(owner, host);
    const space = await owner.spaces.create();
    await owner.records.put(space.id, 'app.post', { text: 'before' });
    // The owner names the space to the host once the host is a member; the host holds it only
    // after, and then shows its own acceptance as its credential.
    await owner.spaces.setRole(space.id, host.did, 'reader');
    await new Promise((r) => setTimeout(r, 300));
    await host.spaces.join(await owner.spaces.invite(space.id, { role: 'reader' }));
    await converged([owner, host], space.id);
    await until(() => linked(host, space.id), 10_000, 'the host to link the space');
    expect((await host.records.list(space.id, 'app.post')).map((r) => r.body)).toEqual([
      { text: 'before' },
    ]);
    await Promise.all([owner.close(), host.close()]);
  });

  it('takes a credential’s offer before its acceptance', async () => {
    const [owner, host, joiner] = [await newNode(), await newNode(), await newNode()];
    connect(owner, host);
    connect(joiner, host);
    const space = await owner.spaces.create();
    await owner.spaces.setRole(space.id, host.did, 'reader');
    await host.spaces.join(await owner.spaces.share(space.id, host.did));
    await owner.records.put(space.id, 'app.post', { text: 'hi' });
    await converged([owner, host], space.id);
    // The host doesn't know this invite yet when the joiner names the space with it.
    const code = await owner.spaces.invite(space.id);
    await joiner.spaces.join(code);
    await joiner.spaces.join(await owner.spaces.share(space.id, host.did));
    await until(
      async () => (await joiner.records.list(space.id, 'app.post')).length === 1,
      10_000,
      'the joiner to get the post through the host',
    );
    await Promise.all([owner.close(), host.close(), joiner.close()]);
  });
});
