// Child processes run the built packages (plain Node can't load TypeScript), so they must be
// built: `turbo run test` builds them first; run alone, this builds what is missing.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const built = ['packages/core/dist/index.js', 'packages/memory/dist/index.js'].every((f) =>
    existsSync(root + f),
  );
  if (!built)
    execFileSync('pnpm', ['turbo', 'run', 'build', '--filter=@minca/memory...'], {
      cwd: root,
      stdio: 'inherit',
    });
}
