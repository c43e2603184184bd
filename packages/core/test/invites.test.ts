import { describe, expect, it } from 'vitest';
import { decodeInvite, encodeInvite } from '../src/invite-code.js';
import { newNode as node } from './sync-helpers.js';

describe('invites', () => {
  it('let a new node join with the role offered, and stay in the registry until used', async () => {
    const [owner, guest] = [await node(), await node()];
    const space = await owner.spaces.create();
    const code = await owner.spaces.invite(space.id, { role: 'writer' });
    expect(code).toMatch(/^minca-invite:[A-Za-z0-9_-]+$/);
    expect(code).not.toContain(guest.did);
    const invites = await owner.spaces.invites(space.id);
    expect(invites).toEqual([{ id: expect.any(String), role: 'writer' }]);

    const joined = await guest.spaces.join(code);
    expect(joined).toEqual({ id: space.id, owner: owner.did });
    // The guest knows its role at once, before any sync, and can write.
    const post = await guest.records.put(space.id, 'app.post', { text: 'hi' });
    expect((await guest.records.get(space.id, 'app.post', post.id))?.author).toBe(guest.did);
    expect(await guest.spaces.list()).toEqual([space.id]);
  });

  it('offer a reader nothing to write', async () => {
    const [owner, guest] = [await node(), await node()];
    const space = await owner.spaces.create();
    await guest.spaces.join(await owner.spaces.invite(space.id, { role: 'reader' }));
    await expect(guest.records.put(space.id, 'app.post', { text: 'no' })).rejects.toMatchObject({
      code: 'not_authorized',
    });
  });

  it('reject codes that are not invites, or whose offer is not the owner’s', async () => {
    const [owner, guest, other] = [await node(), await node(), await node()];
    const space = await owner.spaces.create();
    const code = await owner.spaces.invite(space.id);
    for (const bad of [
      '',
      'minca-invite:',
      'minca-invite:!!!',
      `${code.slice(0, -8)}`,
      'https://example.com',
    ]) {
      await expect(guest.spaces.join(bad)).rejects.toMatchObject({ code: 'invalid_input' });
    }
    // A code claiming another owner, or carrying another space's offer, is refused.
    const invite = decodeInvite(code);
    const theirs = decodeInvite(await other.spaces.invite((await other.spaces.create()).id));
    for (const forged of [
      { ...invite, owner: other.did },
      { ...invite, offer: theirs.offer },
    ]) {
      await expect(guest.spaces.join(encodeInvite(forged))).rejects.toMatchObject({
        code: 'invalid_input',
      });
    }
    // An offer withdrawn from the code's secret: another invite's secret doesn't fit this offer.
    await expect(
      guest.spaces.join(encodeInvite({ ...invite, secret: theirs.secret })),
    ).rejects.toMatchObject({
      code: 'not_authorized',
    });
    // None of it left a trace.
    expect(await guest.spaces.list()).toEqual([]);
  });
});
