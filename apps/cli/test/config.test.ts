import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { parseBytes, readConfigFile, Settings } from '../src/config.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'minca-config-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('settings', () => {
  it('take a flag over the environment over the file', async () => {
    await writeFile(
      join(dir, 'config.json'),
      JSON.stringify({ host: { port: 1111 }, peers: ['ws://f'] }),
    );
    const file = readConfigFile(undefined, {}, dir);
    const source = { env: 'MINCA_PORT', file: 'host.port' };
    expect(new Settings({}, file).number(source, 'port')).toBe(1111);
    expect(new Settings({ MINCA_PORT: '2222' }, file).number(source, 'port')).toBe(2222);
    expect(
      new Settings({ MINCA_PORT: '2222' }, file).number({ ...source, flag: '3333' }, 'port'),
    ).toBe(3333);
    expect(new Settings({}, file).list({ env: 'MINCA_PEERS', file: 'peers' })).toEqual(['ws://f']);
    expect(
      new Settings({ MINCA_PEERS: 'ws://a, ws://b' }, file).list({
        env: 'MINCA_PEERS',
        file: 'peers',
      }),
    ).toEqual(['ws://a', 'ws://b']);
  });

  it('refuse a config file that is not a JSON object, saying which', async () => {
    await writeFile(join(dir, 'config.json'), '[1,');
    expect(() => readConfigFile(undefined, {}, dir)).toThrow(/config.json is not a JSON object/);
    expect(() => readConfigFile(join(dir, 'missing.json'), {}, dir)).toThrow(CliError);
    // No file at the default place is no settings.
    expect(readConfigFile(undefined, {}, join(dir, 'nothing'))).toEqual({});
  });

  it('refuse a value of the wrong kind', () => {
    const settings = new Settings({ MINCA_PORT: 'eighty' }, { host: { port: [1] } });
    expect(() => settings.number({ env: 'MINCA_PORT' }, '--port')).toThrow(
      /--port must be a number/,
    );
    expect(() => settings.string({ file: 'host.port' })).toThrow(/host.port/);
  });
});

describe('parseBytes', () => {
  it('reads sizes as people write them', () => {
    expect(parseBytes('4096', 'x')).toBe(4096);
    expect(parseBytes('10MiB', 'x')).toBe(10 * 2 ** 20);
    expect(parseBytes('1.5 GB', 'x')).toBe(1.5e9);
    expect(parseBytes('2k', 'x')).toBe(2000);
    expect(() => parseBytes('ten', '--bytes')).toThrow(/--bytes/);
    expect(() => parseBytes('3 parsecs', '--bytes')).toThrow(CliError);
  });
});
