// A forwarded invite through the CLI and a host, with real `minca` processes on 127.0.0.1: the
// owner invites one person, and two join with the same code, each meeting only the host. The
// first joiner's records keep standing for everyone; the owner's `minca space status` shows the
// double use (which invite, which accounts), and the owner removes one of them, who then can't
// write anything that stands, nor read what is written after.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homesForFile, minca, mincaJson, type Running, startMinca } from './minca.ts';

let host: Running | undefined;
const [o, b, c, h] = await homesForFile(['owner', 'ben', 'cleo', 'host'], () => host?.stop());

type Row = { body: { from: string } };
const bodies = (rows: Row[]) => rows.map((r) => r.body.from).sort();

describe('an invite used by two people', () => {
  it('costs the first nothing, and the owner sees and can undo the double use', async () => {
    const owner = await mincaJson<{ did: string }>(o, ['init']);
    const ben = await mincaJson<{ did: string }>(b, ['init']);
    const cleo = await mincaJson<{ did: string }>(c, ['init']);
    await mincaJson(h, ['host', 'subscription', 'add', owner.did, '--data', join(h, 'data')]);
    host = await startMinca(h, ['host', '--port', '0', '--data', join(h, 'data')]);
    const url = host.first.url as string;
    const sync = (home: string) => mincaJson(home, ['sync', url, '--timeout', '30']);

    const space = (await mincaJson<{ id: string }>(o, ['space', 'create'])).id;
    await mincaJson(o, ['put', space, 'app.post', '{"from":"owner"}']);
    await mincaJson(o, ['space', 'allow', space, url]);
    const { code } = await mincaJson<{ code: string }>(o, ['space', 'invite', space]);
    await sync(o);
    // What the host keeps is its own to read: its key, its database and the database's WAL.
    for (const file of ['host.key', 'host.sqlite', 'host.sqlite-wal', 'host.sqlite-shm'])
      expect((await stat(join(h, 'data', file))).mode & 0o777, file).toBe(0o600);

    // Ben joins and posts; then Cleo joins with the same code (it was forwarded) and posts.
    await mincaJson(b, ['space', 'join', code]);
    await sync(b);
    await mincaJson(b, ['put', space, 'app.post', '{"from":"ben"}']);
    await sync(b);
    await mincaJson(c, ['space', 'join', code]);
    await sync(c);
    await mincaJson(c, ['put', space, 'app.post', '{"from":"cleo"}']);
    await sync(c);
    await sync(b);
    await sync(o);

    // Ben's post stands for everyone, and so does Ben's role: he still writes.
    for (const home of [o, b, c])
      expect(bodies(await mincaJson<Row[]>(home, ['list', space, 'app.post']))).toEqual([
        'ben',
        'cleo',
        'owner',
      ]);
    await mincaJson(b, ['put', space, 'app.post', '{"from":"ben again"}']);

    // The owner is told: which invite, which accounts, first first.
    type Status = { reusedInvites: Array<{ invite: string; accounts: string[] }> };
    const status = await mincaJson<Status>(o, ['space', 'status', space]);
    expect(status.reusedInvites).toEqual([
      { invite: expect.any(String), accounts: [ben.did, cleo.did] },
    ]);
    const shown = await minca(o, ['space', 'status', space]);
    expect(shown.stdout).toContain(`invite ${status.reusedInvites[0]!.invite} was accepted by 2`);
    expect(shown.stdout).toContain(ben.did);
    expect(shown.stdout).toContain(cleo.did);
    const overview = await minca(o, ['status', '--offline']);
    expect(overview.stdout).toContain(`space ${space}: 1 invite(s) used by more than one account`);

    // The owner removes Cleo: from now on she writes nothing that stands, and can't read on.
    await mincaJson(o, ['space', 'remove-member', space, cleo.did]);
    await mincaJson(o, ['put', space, 'app.post', '{"from":"owner after"}']);
    await sync(o);
    await mincaJson(c, ['put', space, 'app.post', '{"from":"cleo after"}']);
    await minca(c, ['sync', url, '--timeout', '8']);
    await minca(b, ['sync', url, '--timeout', '8']);
    await minca(o, ['sync', url, '--timeout', '8']);
    const after = ['ben', 'ben again', 'cleo', 'owner', 'owner after'];
    expect(bodies(await mincaJson<Row[]>(b, ['list', space, 'app.post']))).toEqual(after);
    expect(bodies(await mincaJson<Row[]>(o, ['list', space, 'app.post']))).toEqual(after);
    const seenByCleo = bodies(await mincaJson<Row[]>(c, ['list', space, 'app.post']));
    expect(seenByCleo).not.toContain('owner after');
    expect(seenByCleo).toContain('ben');
  }, 240_000);
});
