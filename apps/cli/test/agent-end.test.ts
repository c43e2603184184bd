// `minca agent end` revokes the slot's writer key: a session that kept a copy of its slot and
// key can write nothing that stands after, while what it wrote before keeps standing.
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homesForFile, minca, mincaJson } from './minca.ts';

const [home] = await homesForFile(['agent-end']);

describe('minca agent end', () => {
  it('revokes the slot’s key: a kept copy of it writes nothing that stands', async () => {
    await mincaJson(home, ['init']);
    const space = (await mincaJson<{ id: string }>(home, ['space', 'create'])).id;
    const other = (await mincaJson<{ id: string }>(home, ['space', 'create'])).id;
    const started = await mincaJson<{ slot: string; did: string; spaces: string[] }>(home, [
      'agent',
      'start',
      '--space',
      space,
    ]);
    expect(started.spaces).toEqual([space]);
    const env = { MINCA_AGENT: started.slot };
    const before = await mincaJson<{ id: string; author: string }>(
      home,
      ['put', space, 'app.post', '{"by":"agent"}'],
      { env },
    );
    expect(before.author).toBe(started.did);
    // The slot holds only the spaces it was given (its key is certified for those alone).
    const elsewhere = await minca(home, ['put', other, 'app.post', '{"by":"agent"}'], { env });
    expect(elsewhere.code).toBe(4);

    // The session keeps a copy of its slot and key, as a misbehaving one could.
    const { account } = await mincaJson<{ account: { local: string } }>(home, [
      'status',
      '--offline',
    ]);
    const keyFile = join(account.local, 'writer-keys', `agent-${started.slot}.key`);
    const slotDir = join(home, '.minca', 'agent', started.slot);
    await cp(keyFile, join(home, 'kept.key'));
    await cp(slotDir, join(home, 'kept-slot'), { recursive: true });

    const ended = await mincaJson<{ ended: string; revoked: string }>(home, [
      'agent',
      'end',
      started.slot,
    ]);
    expect(ended).toEqual({ ended: started.slot, revoked: started.did });
    await expect(readFile(keyFile)).rejects.toThrow();

    await cp(join(home, 'kept.key'), keyFile);
    await cp(join(home, 'kept-slot'), slotDir, { recursive: true });
    const after = await minca(home, ['put', space, 'app.post', '{"by":"agent, after"}'], { env });
    expect(after.code).toBe(6);
    expect(after.stderr).toMatch(/its key is revoked/);
    const listed = await mincaJson<Array<{ author: string; body: { by: string } }>>(home, [
      'list',
      space,
      'app.post',
    ]);
    expect(listed.map((r) => r.body.by)).toEqual(['agent']);
  }, 120_000);
});
