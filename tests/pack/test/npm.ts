/** Running npm, pnpm and node as a person outside this workspace would: a clean environment. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment without what pnpm and turbo set for this workspace (`npm_*`, `PNPM_*`,
 * `TURBO_*`), so npm reads only the config given. better-sqlite3 builds against the headers
 * that ship with this Node, where they do, as scripts/bootstrap.mjs has it do.
 */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|PNPM_|TURBO_|VITEST|NODE_OPTIONS$)/i.test(key)) env[key] = value;
  }
  const headers = join(dirname(process.execPath), '..', 'include', 'node');
  if (existsSync(join(headers, 'node.h'))) env.npm_config_nodedir = join(headers, '..', '..');
  // Only the npm registry is reachable here: better-sqlite3 builds at once rather than first
  // trying to download a prebuilt binary from elsewhere.
  env.npm_config_build_from_source = 'true';
  return { ...env, ...extra };
}

/** Runs `file args` in `cwd`, at most `timeout` ms; never rejects. */
export function run(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeout: number },
): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({
        code: error ? Number((error as { code?: unknown }).code ?? 1) || 1 : 0,
        stdout,
        stderr,
      }),
    );
  });
}

/** What a failed run said, for an assertion's message. */
export const said = (ran: Ran) =>
  `exit ${ran.code}\n${ran.stdout.slice(-3000)}\n${ran.stderr.slice(-3000)}`;
