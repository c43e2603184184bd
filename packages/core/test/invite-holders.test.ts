import { describe, expect, it } from 'vitest';
import { decodeInvite, encodeInvite } from '../src/invite-code.js';
import { connect, converged, nodeFixture, until } from './sync-helpers.js';

const fixture = nodeFixture();
const make = (holding = false) => fixture.make(holding ? { holding: {} } : {});

describe('an invite carries the holders the owner allows', () => {
  it('so a joiner that meets only the host syncs through it', async () => {
    const [owner, joiner, host] = [await make(), await make(), await make(true)];
    const { id: space } = await owner.spaces.create();
    await owner.spaces.allowHolder(space, host.did, 'host');
    await owner.records.put(space, 'app.post', { from: 'owner' });
    const code = await owner.spaces.invite(space);
    expect(decodeInvite(code).holders).toHaveLength(1);
    connect(owner, host);
    await until(async () => (await host.spaces.held()).length === 1, 5000, 'held');
    await converged([owner, host], space);

    await joiner.spaces.join(code);
    connect(joiner, host);
    await until(
      async () => (await joiner.records.list(space, 'app.post')).length === 1,
      10_000,
      'the post',
    );
    await joiner.records.put(space, 'app.post', { from: 'joiner' });
    await converged([owner, joiner, host], space);
    expect(await owner.records.list(space, 'app.post')).toHaveLength(2);
  });

  it('refuses a code whose holders are not its owner’s, keeping nothing', async () => {
    const [owner, stranger, joiner] = [await make(), await make(), await make()];
    const { id: space } = await owner.spaces.create();
    const { id: other } = await stranger.spaces.create();
    await stranger.spaces.allowHolder(other, joiner.did, 'host');
    const foreign = decodeInvite(await stranger.spaces.invite(other)).holders!;
    const forged = encodeInvite({
      ...decodeInvite(await owner.spaces.invite(space)),
      holders: foreign,
    });
    await expect(joiner.spaces.join(forged)).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await joiner.spaces.list()).toEqual([]);
    const tooMany = encodeInvite({
      ...decodeInvite(await owner.spaces.invite(space)),
      holders: Array.from({ length: 17 }, () => foreign[0]!),
    });
    await expect(joiner.spaces.join(tooMany)).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
