/**
 * Every package as it would be published: packed with pnpm (which turns `workspace:` ranges into
 * real versions), served by a registry for the `@minca` scope on 127.0.0.1, and installed with
 * npm alone into an app outside the workspace, which runs the README's example. The CLI is
 * installed globally (into a prefix of its own) and `minca --version` answers.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRegistry, startRegistry } from './local-registry.ts';
import { cleanEnv, run, said } from './npm.ts';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
/** The packages a person installs, each published on its own. */
const PUBLISHED = [
  'packages/core',
  'packages/memory',
  'packages/idb',
  'packages/folder',
  'packages/sqlite',
  'packages/s3',
  'packages/std',
  'apps/cli',
];
const MINUTE = 60_000;

let work: string;
let registry: LocalRegistry;
let env: NodeJS.ProcessEnv;
const inApp = () => ({ cwd: join(work, 'app'), env, timeout: 5 * MINUTE });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'minca-pack-'));
  const tarballs: string[] = [];
  for (const dir of PUBLISHED) {
    const packed = await run('pnpm', ['pack', '--pack-destination', join(work, 'tarballs')], {
      cwd: join(repo, dir),
      env: process.env,
      timeout: MINUTE,
    });
    expect(packed.code, said(packed)).toBe(0);
    const file = packed.stdout.trim().split('\n').at(-1)!.trim();
    tarballs.push(file);
  }
  registry = await startRegistry(tarballs);
  const npmrc = join(work, 'npmrc');
  writeFileSync(
    npmrc,
    [`@minca:registry=${registry.url}`, 'fund=false', 'audit=false', 'update-notifier=false'].join(
      '\n',
    ),
  );
  env = cleanEnv({
    npm_config_userconfig: npmrc,
    MINCA_LOCAL: join(work, 'local-state'),
    MINCA_HOME: join(work, 'home'),
  });
  mkdirSync(join(work, 'app'));
  writeFileSync(
    join(work, 'app', 'package.json'),
    JSON.stringify({ name: 'an-app', private: true, type: 'module' }),
  );
});

afterAll(async () => {
  await registry?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed packages', () => {
  it('carry real versions in place of workspace ranges, and no private flag', () => {
    expect([...registry.manifests.keys()].sort()).toEqual([
      '@minca/cli',
      '@minca/core',
      '@minca/folder',
      '@minca/idb',
      '@minca/memory',
      '@minca/s3',
      '@minca/sqlite',
      '@minca/std',
    ]);
    for (const [name, manifest] of registry.manifests) {
      expect(JSON.stringify(manifest), name).not.toContain('workspace:');
      expect(manifest.private, name).toBeUndefined();
      const deps = (manifest.dependencies ?? {}) as Record<string, string>;
      for (const [dep, range] of Object.entries(deps)) {
        if (dep.startsWith('@minca/'))
          expect(range, `${name} → ${dep}`).toMatch(/^\^\d+\.\d+\.\d+$/);
      }
    }
  });

  it("install into a new app with npm alone, which runs the README's example", async () => {
    const installed = await run('npm', ['install', '@minca/core', '@minca/memory'], inApp());
    expect(installed.code, said(installed)).toBe(0);
    // The README's first TypeScript example is plain JavaScript too: run it as it stands.
    const readme = readFileSync(join(repo, 'README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("from '@minca/core'");
    writeFileSync(join(work, 'app', 'readme-example.mjs'), example!);
    const ran = await run('node', ['readme-example.mjs'], inApp());
    expect(ran.code, said(ran)).toBe(0);
    expect(ran.stdout).toContain("text: 'Look again'");
  });

  it('every other package installs beside them and loads in Node', async () => {
    const backends = ['@minca/idb', '@minca/folder', '@minca/sqlite', '@minca/s3', '@minca/std'];
    const installed = await run('npm', ['install', ...backends], inApp());
    expect(installed.code, said(installed)).toBe(0);
    writeFileSync(
      join(work, 'app', 'load.mjs'),
      `const loaded = {
  indexedDBStores: (await import('@minca/idb')).indexedDBStores,
  directoryStores: (await import('@minca/folder')).directoryStores,
  nodeFolder: (await import('@minca/folder')).nodeFolder,
  sqliteStores: (await import('@minca/sqlite')).sqliteStores,
  createS3BlobStore: (await import('@minca/s3')).createS3BlobStore,
  readProfile: (await import('@minca/std')).readProfile,
  createNode: (await import('@minca/core')).createNode,
};
console.log(JSON.stringify(Object.fromEntries(Object.entries(loaded).map(([k, v]) => [k, typeof v]))));
`,
    );
    const ran = await run('node', ['load.mjs'], inApp());
    expect(ran.code, said(ran)).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({
      indexedDBStores: 'function',
      directoryStores: 'function',
      nodeFolder: 'function',
      sqliteStores: 'function',
      createS3BlobStore: 'function',
      readProfile: 'function',
      createNode: 'function',
    });
  });

  it('npm install -g of the CLI gives a minca that runs', async () => {
    const prefix = join(work, 'global');
    const installed = await run('npm', ['install', '-g', '--prefix', prefix, '@minca/cli'], {
      ...inApp(),
      // It compiles better-sqlite3 for this Node: minutes on a loaded machine.
      timeout: 12 * MINUTE,
    });
    expect(installed.code, said(installed)).toBe(0);
    const minca = join(prefix, 'bin', 'minca');
    const version = await run(minca, ['--version'], inApp());
    expect(version.code, said(version)).toBe(0);
    expect(version.stdout.trim()).toBe(registry.manifests.get('@minca/cli')!.version);
    // A real command, through the CLI's own dependencies (better-sqlite3 built from source for this Node).
    const init = await run(minca, ['--json', 'init'], inApp());
    expect(init.code, said(init)).toBe(0);
    const host = await run(minca, ['host', 'status', '--data', join(work, 'host')], inApp());
    expect(host.code, said(host)).toBe(0);
    expect(host.stdout).toContain('holds no space yet');
  });

  it('would publish as they are: npm publish --dry-run of each to a registry without them', async () => {
    // The registry above has them, and npm refuses to publish over a version: this one is empty.
    const empty = await startRegistry([]);
    try {
      for (const [name] of registry.manifests) {
        const args = ['publish', '--dry-run', '--json', `--@minca:registry=${empty.url}`];
        const dry = await run('npm', [...args, tarballOf(name)], inApp());
        expect(dry.code, `${name}: ${said(dry)}`).toBe(0);
        // npm 11 answers { [name]: { id, files, … } }.
        const out = (
          JSON.parse(dry.stdout) as Record<string, { id: string; files: Array<{ path: string }> }>
        )[name]!;
        expect(out.id).toBe(`${name}@${registry.manifests.get(name)!.version}`);
        expect(out.files.some((f) => f.path.startsWith('dist/'))).toBe(true);
      }
    } finally {
      await empty.close();
    }
  });
});

const tarballOf = (name: string) =>
  join(
    work,
    'tarballs',
    `${name.replace('@', '').replace('/', '-')}-${registry.manifests.get(name)!.version}.tgz`,
  );
