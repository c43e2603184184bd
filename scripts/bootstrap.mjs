// Installs what the workspace needs on a machine with only Node and npm: pnpm at the pinned
// version, the system packages the tests use (where they are missing), then the dependencies
// from the lockfile. Idempotent: quick when everything is already there.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const run = (cmd, env = {}) =>
  execSync(cmd, { stdio: 'inherit', cwd: root, env: { ...process.env, ...env } });
const output = (cmd) => {
  try {
    return execSync(cmd, { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return '';
  }
};

const pnpm = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split(
  '@',
)[1];
if (output('pnpm --version') !== pnpm) run(`npm install -g pnpm@${pnpm}`);

// System packages the tests need: a real Chromium for the browser tests, and ffmpeg, which
// makes the demo's test video.
const wantsApt = process.argv.includes('--with-system-deps');
const missing = [
  existsSync('/usr/bin/chromium') ? undefined : 'chromium',
  output('command -v ffmpeg') ? undefined : 'ffmpeg',
].filter(Boolean);
if (wantsApt && missing.length > 0) {
  if (process.platform === 'linux' && output('command -v apt-get')) {
    const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
    run(`${sudo}apt-get update -qq && ${sudo}apt-get install -y -qq ${missing.join(' ')}`);
  } else {
    // No apt here: the browser tests are skipped (and fail on CI) until these are installed.
    console.warn(`bootstrap: no apt-get to install ${missing.join(', ')}: install them yourself`);
  }
}

// better-sqlite3 builds from source where no prebuilt binary can be fetched; build it against
// the headers that ship with this Node, when they do, rather than downloading them.
const headers = join(dirname(process.execPath), '..', 'include', 'node');
const env = existsSync(join(headers, 'node.h'))
  ? { npm_config_nodedir: join(headers, '..', '..') }
  : {};
run('pnpm install --frozen-lockfile', env);
