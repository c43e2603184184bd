// The tests run the built `minca` (dist/main.js) as separate processes, as a person would:
// `turbo run test` builds it first (turbo.json); run alone, this builds what is missing.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  if (!existsSync(`${root}apps/cli/dist/main.js`) || process.env.MINCA_TEST_REBUILD) {
    execFileSync('pnpm', ['turbo', 'run', 'build', '--filter=@minca/cli...'], {
      cwd: root,
      stdio: 'inherit',
    });
  }
}
