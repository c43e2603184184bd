/** Any two members converge: a joiner who meets only another member shares the space (spec 05 §8). */
import { it } from 'vitest';
import { connect, newNode, until } from '../sync-helpers.js';

it('a joiner who meets only another member, never the owner, shares the space', async () => {
  const [owner, member, joiner] = [await newNode(), await newNode(), await newNode()];
  const space = await owner.spaces.create();
  await owner.spaces.setRole(space.id, member.did, 'writer');
  await member.spaces.join(await owner.spaces.share(space.id, member.did));
  await owner.records.put(space.id, 'app.post', { text: 'from owner' });
  connect(owner, member);
  await until(async () => (await member.records.list(space.id, 'app.post')).length === 1);
  const code = await owner.spaces.invite(space.id);
  await until(async () => (await member.spaces.status(space.id)).versions >= 3);
  await owner.close();
  await joiner.spaces.join(code);
  await joiner.records.put(space.id, 'app.post', { text: 'from joiner' });
  connect(member, joiner);
  await until(
    async () => (await joiner.records.list(space.id, 'app.post')).length === 2,
    5000,
    'joiner gets owner post',
  );
  await until(
    async () => (await member.records.list(space.id, 'app.post')).length === 2,
    5000,
    'member gets joiner post',
  );
});
