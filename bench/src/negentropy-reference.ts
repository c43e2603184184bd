// Runs the reference C++ Negentropy (https://github.com/hoytech/negentropy) on the negentropy
// benchmark's sets, in the same run. Either:
//
//   NEGENTROPY_REFERENCE_SRC=<a checkout of https://github.com/hoytech/negentropy> pnpm bench negentropy
//
// compiles our harness, bench/reference/negentropy-harness.cpp, against the checkout's headers
// (g++ -O2 -std=c++20 -I<checkout>/cpp ... -lcrypto: needs g++ and OpenSSL's headers, e.g.
// Debian's g++ and libssl-dev) into bench/node_modules/.cache/negentropy-reference/, reusing the
// binary while the harness, the checkout's headers and the flags are unchanged; or
// NEGENTROPY_REFERENCE_SRC=clone first clones the reference at REFERENCE_COMMIT into that cache
// (needs git and the network once); or
//
//   NEGENTROPY_REFERENCE=<binary> pnpm bench negentropy
//
// runs a harness built elsewhere. Invoked as `<binary> N DIFFER RUNS`, it must generate the same
// items as bench/src/benchmarks/negentropy.ts (item i is (1700000000 + (i*2654435761 mod N),
// SHA-256("bench/" + i)), the same ones on one side only) and print one JSON line per storage:
// {"storage":"BTreeMem","runs":[{"buildMs","reconcileMs","roundTrips","up","down","have","need"}]}
// where buildMs covers inserting and sealing both sides and reconcileMs the client's and the
// server's calls together (a whole session, no frame size limit).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The reference's newest commit when the harness was last checked against it. */
export const REFERENCE_COMMIT = '6edb041df742013b1f119c22c10f049e83768399';
const REFERENCE_URL = 'https://github.com/hoytech/negentropy';

const HARNESS = fileURLToPath(new URL('../reference/negentropy-harness.cpp', import.meta.url));
const CACHE = fileURLToPath(
  new URL('../node_modules/.cache/negentropy-reference/', import.meta.url),
);
const CXX = 'g++';
const FLAGS = ['-O2', '-std=c++20'];

export interface ReferenceRun {
  buildMs: number;
  reconcileMs: number;
  roundTrips: number;
  up: number;
  down: number;
  have: number;
  need: number;
}

/** NEGENTROPY_REFERENCE or NEGENTROPY_REFERENCE_SRC could not give a harness to run. */
export class NegentropyReferenceError extends Error {
  override name = 'NegentropyReferenceError';
}

/** Runs `cmd` to completion; its failure, stderr included, as a NegentropyReferenceError. */
function run(cmd: string, args: string[], what: string): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    if (err.code === 'ENOENT')
      throw new NegentropyReferenceError(`${what}: ${cmd} is not installed`);
    throw new NegentropyReferenceError(
      `${what}: ${cmd} failed: ${(err.stderr ?? err.message).trim()}`,
    );
  }
}

/** A checkout of the reference at REFERENCE_COMMIT in the cache, cloned the first time. */
function cloned(): string {
  const dir = join(CACHE, `negentropy-${REFERENCE_COMMIT.slice(0, 12)}`);
  if (existsSync(join(dir, 'cpp', 'negentropy.h'))) return dir;
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(CACHE, { recursive: true });
  const what = `NEGENTROPY_REFERENCE_SRC=clone (${REFERENCE_URL})`;
  run('git', ['clone', '--quiet', REFERENCE_URL, partial], what);
  run('git', ['-C', partial, 'checkout', '--quiet', '--detach', REFERENCE_COMMIT], what);
  renameSync(partial, dir);
  return dir;
}

/** The harness compiled against the checkout at `src`, compiled only when not cached. */
function compiled(src: string): string {
  const include = join(src, 'cpp');
  if (!existsSync(join(include, 'negentropy.h')))
    throw new NegentropyReferenceError(
      `NEGENTROPY_REFERENCE_SRC=${src}: not a checkout of ${REFERENCE_URL} (no cpp/negentropy.h)`,
    );
  // The binary is named by what goes into it: our harness, the reference's headers, the flags.
  const key = createHash('sha256').update(readFileSync(HARNESS)).update(FLAGS.join(' '));
  const headers = readdirSync(include, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.h') && !f.startsWith('vendor'))
    .sort();
  for (const h of headers) key.update(h).update(readFileSync(join(include, h)));
  const binary = join(CACHE, `harness-${key.digest('hex').slice(0, 16)}`);
  if (existsSync(binary)) return binary;
  mkdirSync(CACHE, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  const started = performance.now();
  run(
    CXX,
    [...FLAGS, `-I${include}`, HARNESS, '-lcrypto', '-o', partial],
    `compiling ${HARNESS} against ${src}`,
  );
  renameSync(partial, binary);
  const s = ((performance.now() - started) / 1000).toFixed(1);
  console.error(`negentropy reference: compiled ${binary} against ${src} in ${s} s`);
  return binary;
}

let harness: string | undefined;

/** The harness to run, from NEGENTROPY_REFERENCE or NEGENTROPY_REFERENCE_SRC; else undefined. */
function harnessBinary(): string | undefined {
  const binary = process.env.NEGENTROPY_REFERENCE;
  const src = process.env.NEGENTROPY_REFERENCE_SRC;
  if (binary && src)
    throw new NegentropyReferenceError(
      'set NEGENTROPY_REFERENCE or NEGENTROPY_REFERENCE_SRC, not both',
    );
  if (binary) return binary;
  if (!src) return undefined;
  harness ??= compiled(src === 'clone' ? cloned() : src);
  return harness;
}

/** Each storage's runs, or undefined when neither variable is set. */
export function runReference(
  n: number,
  differ: number,
  runs: number,
): Map<string, ReferenceRun[]> | undefined {
  const binary = harnessBinary();
  if (!binary) return undefined;
  const out = execFileSync(binary, [String(n), String(differ), String(runs)], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    timeout: 600_000,
  });
  const results = new Map<string, ReferenceRun[]>();
  for (const line of out.split('\n').filter(Boolean)) {
    const parsed = JSON.parse(line) as { storage: string; runs: ReferenceRun[] };
    if (typeof parsed.storage !== 'string' || !Array.isArray(parsed.runs) || !parsed.runs[0])
      throw new NegentropyReferenceError(
        `the reference harness printed an unexpected line: ${line.slice(0, 200)}`,
      );
    results.set(parsed.storage, parsed.runs);
  }
  return results;
}
