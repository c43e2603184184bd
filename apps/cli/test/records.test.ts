// The local commands, as separate `minca` processes in a HOME of their own.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minca, mincaJson, tempHome } from './minca.ts';

let home: { dir: string; remove(): Promise<void> };
let space: string;
beforeAll(async () => {
  home = await tempHome('records');
});
afterAll(() => home.remove());

describe('minca, on one device', () => {
  it('refuses to work before init, and says what to do', async () => {
    const ran = await minca(home.dir, ['space', 'list']);
    expect(ran.code).toBe(3);
    expect(ran.stderr).toMatch(/run `minca init`/);
  });

  it('init makes an account whose key file is 0600 and never printed', async () => {
    const made = await mincaJson<{ did: string; home: string; local: string }>(home.dir, ['init']);
    expect(made.did).toMatch(/^did:key:z/);
    expect(made.home).toBe(join(home.dir, '.minca'));
    expect(made.local.startsWith(join(home.dir, '.local/state/minca/'))).toBe(true);
    const keyFile = join(made.home, 'account.key');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(made.home)).mode & 0o777).toBe(0o700);
    const secret = (await readFile(keyFile)).toString('hex');
    const again = await minca(home.dir, ['init']);
    expect(again.code).toBe(2);
    const status = await minca(home.dir, ['status', '--offline']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(made.did);
    for (const text of [status.stdout, status.stderr, JSON.stringify(made)])
      expect(text).not.toContain(secret);
    expect(await readdir(made.local)).toContain('stores');
  });

  it('creates a space and writes, reads, lists and deletes records as JSON', async () => {
    space = (await mincaJson<{ id: string }>(home.dir, ['space', 'create'])).id;
    const list = await mincaJson<Array<{ id: string }>>(home.dir, ['space', 'list']);
    expect(list.map((s) => s.id)).toEqual([space]);

    const a = await mincaJson<{ id: string }>(home.dir, [
      'put',
      space,
      'app.post',
      '{"text":"one"}',
    ]);
    const b = await mincaJson<{ id: string }>(home.dir, ['put', space, 'app.post', '-'], {
      input: '{"text":"two"}',
    });
    await mincaJson(home.dir, ['put', space, 'app.post', '{"text":"one, edited"}', '--id', a.id]);
    const got = await mincaJson<{ body: unknown }>(home.dir, ['get', space, 'app.post', a.id]);
    expect(got.body).toEqual({ text: 'one, edited' });
    const plain = await minca(home.dir, ['get', space, 'app.post', b.id]);
    expect(JSON.parse(plain.stdout)).toEqual({ text: 'two' });

    const all = await mincaJson<Array<{ id: string; body: unknown }>>(home.dir, [
      'list',
      space,
      'app.post',
    ]);
    expect(all.map((r) => (r.body as { text: string }).text).sort()).toEqual([
      'one, edited',
      'two',
    ]);
    const table = await minca(home.dir, ['list', space, 'app.post']);
    expect(table.stdout.split('\n')[0]).toMatch(/^id\s+written\s+author\s+body/);

    expect((await minca(home.dir, ['delete', space, 'app.post', b.id])).code).toBe(0);
    const gone = await minca(home.dir, ['get', space, 'app.post', b.id]);
    expect(gone.code).toBe(4);
    expect((await minca(home.dir, ['delete', space, 'app.post', b.id])).code).toBe(4);
  });

  it('gives bad input a clear error and a meaningful exit code, keeping what was stored', async () => {
    const notJson = await minca(home.dir, ['put', space, 'app.post', '{text']);
    expect(notJson.code).toBe(7);
    expect(notJson.stderr).toMatch(/not JSON/);
    const sysWrite = await minca(home.dir, ['put', space, 'sys.member', '{}']);
    expect(sysWrite.code).toBe(7);
    expect(sysWrite.stderr).toMatch(/sys\.\*/);
    const unknown = await minca(home.dir, ['list', 'aaaaaaaaaaaaaaaaaaaaaaaaaa', 'app.post']);
    expect(unknown.code).toBe(4);
    const usage = await minca(home.dir, ['list', space]);
    expect(usage.code).toBe(2);
    const badCode = await minca(home.dir, ['space', 'join', 'minca-invite:nonsense']);
    expect(badCode.code).toBe(7);
    const left = await mincaJson<unknown[]>(home.dir, ['list', space, 'app.post']);
    expect(left).toHaveLength(1);
  });

  it('init --folder makes the account in a data folder, its registry sealed there', async () => {
    const pod = join(home.dir, 'pod');
    const made = await mincaJson<{ home: string; folder: boolean }>(
      home.dir,
      ['init', '--folder', pod],
      { env: { MINCA_PASSPHRASE: 'a passphrase for the test pod' } },
    );
    expect(made).toEqual(expect.objectContaining({ home: pod, folder: true }));
    const space = (await mincaJson<{ id: string }>(home.dir, ['--home', pod, 'space', 'create']))
      .id;
    await mincaJson(home.dir, ['--home', pod, 'put', space, 'app.note', '{"n":1}']);
    const listed = await mincaJson<unknown[]>(home.dir, ['--home', pod, 'list', space, 'app.note']);
    expect(listed).toHaveLength(1);
    // The folder holds no key: the root key stays on this device, and in the recovery file
    // under the passphrase (spec 05 §14.1).
    const inPod = await readdir(pod);
    expect(inPod).toEqual(expect.arrayContaining(['account.json', 'recovery.minca', 'registry']));
    expect(inPod).not.toContain('account.key');
  });

  it('minca agent: a slot with its own key and stores, whose writes reach the account', async () => {
    const started = await mincaJson<{ slot: string; did: string; spaces: string[] }>(home.dir, [
      'agent',
      'start',
      '--label',
      'test',
    ]);
    expect(started.spaces).toEqual([space]);
    const slotDir = join(home.dir, '.minca', 'agent', started.slot);
    // Its key is a writer key of this device's, beside the local stores (never in the home).
    const { account } = await mincaJson<{ account: { local: string } }>(home.dir, [
      'status',
      '--offline',
    ]);
    const keyFile = join(account.local, 'writer-keys', `agent-${started.slot}.key`);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(await readdir(slotDir)).toContain('stores');
    const env = { MINCA_AGENT: started.slot };
    const written = await mincaJson<{ id: string; author: string }>(
      home.dir,
      ['put', space, 'app.post', '{"by":"agent"}'],
      { env },
    );
    expect(written.author).toBe(started.did);
    // The account itself, not the agent, sees it: the command synced the slot into it.
    const seen = await mincaJson<{ author: string }>(home.dir, [
      'get',
      space,
      'app.post',
      written.id,
    ]);
    expect(seen.author).toBe(started.did);
    const slots = await mincaJson<Array<{ slot: string }>>(home.dir, ['agent', 'list']);
    expect(slots.map((s) => s.slot)).toEqual([started.slot]);
    await mincaJson(home.dir, ['agent', 'end', started.slot]);
    expect(await mincaJson<unknown[]>(home.dir, ['agent', 'list'])).toEqual([]);
    const gone = await minca(home.dir, ['list', space, 'app.post'], { env });
    expect(gone.code).toBe(4);
    expect(
      await mincaJson<{ author: string }>(home.dir, ['get', space, 'app.post', written.id]),
    ).toBeTruthy();
  });
});
