/**
 * Versioning with changesets, in a copy of the workspace's manifests and pending changesets (so
 * nothing here changes): `changeset version` gives every published package a release, leaves
 * the private apps alone, and each package versions on its own: a patch to one backend
 * releases that backend only, once each is past 0.0.x.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { cleanEnv, run, said } from './npm.ts';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const CHANGESET = join(repo, 'node_modules', '.bin', 'changeset');
const PUBLISHED = ['core', 'memory', 'idb', 'folder', 'sqlite', 's3', 'std'].map(
  (p) => `packages/${p}`,
);
PUBLISHED.push('apps/cli');

let copy: string | undefined;
afterEach(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/** The workspace's manifests and `.changeset/` config in a temp folder, with its pending changesets. */
function copyWorkspace(pending = true): string {
  copy = mkdtempSync(join(tmpdir(), 'minca-changesets-'));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) =>
      /(^|\/)package\.json$|^pnpm-workspace\.yaml$|^\.changeset\/config\.json$/.test(f),
    )
    .filter((f) => !f.includes('node_modules'));
  for (const file of files) {
    mkdirSync(join(copy, dirname(file)), { recursive: true });
    cpSync(join(repo, file), join(copy, file));
  }
  if (pending) {
    for (const name of readdirSync(join(repo, '.changeset')).filter((n) => n.endsWith('.md'))) {
      cpSync(join(repo, '.changeset', name), join(copy, '.changeset', name));
    }
  }
  return copy;
}

const versionOf = (dir: string, pkg: string) =>
  (JSON.parse(readFileSync(join(dir, pkg, 'package.json'), 'utf8')) as { version: string }).version;

async function changesetVersion(dir: string): Promise<void> {
  const ran = await run(CHANGESET, ['version'], { cwd: dir, env: cleanEnv({}), timeout: 60_000 });
  expect(ran.code, said(ran)).toBe(0);
}

it('changeset version releases every published package with pending changes, and no private one', async () => {
  const dir = copyWorkspace(true);
  const before = new Map(PUBLISHED.map((p) => [p, versionOf(dir, p)]));
  const demo = versionOf(dir, 'apps/demo');
  await changesetVersion(dir);
  for (const pkg of PUBLISHED) {
    expect(versionOf(dir, pkg), pkg).not.toBe(before.get(pkg));
    expect(readFileSync(join(dir, pkg, 'CHANGELOG.md'), 'utf8'), pkg).toMatch(/^# @minca\//);
  }
  expect(versionOf(dir, 'apps/demo')).toBe(demo);
  expect(versionOf(dir, 'apps/example')).toBe('0.0.0');
});

it('each package versions on its own: a patch to one backend releases it alone', async () => {
  for (const [changed, alone] of [
    ['@minca/s3', 'packages/s3'],
    ['@minca/sqlite', 'packages/sqlite'],
    ['@minca/core', 'packages/core'],
  ] as const) {
    // After the release the pending changesets make (each package past 0.0.x, where a caret
    // range would allow no patch at all).
    const dir = copyWorkspace(true);
    await changesetVersion(dir);
    const before = new Map(PUBLISHED.map((p) => [p, versionOf(dir, p)]));
    writeFileSync(join(dir, '.changeset', 'one.md'), `---\n'${changed}': patch\n---\n\nA fix.\n`);
    await changesetVersion(dir);
    for (const pkg of PUBLISHED) {
      const moved = versionOf(dir, pkg) !== before.get(pkg);
      expect(moved, `${changed} patched: ${pkg} ${moved ? 'moved' : 'stayed'}`).toBe(pkg === alone);
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
