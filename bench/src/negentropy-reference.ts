// Runs the reference C++ Negentropy (hoytech/negentropy) on the negentropy benchmark's sets, in
// the same run. The binary is built outside this repository from the public reference code and
// named by NEGENTROPY_REFERENCE; invoked as `<binary> N DIFFER RUNS`, it must generate the same
// items as bench/src/benchmarks/negentropy.ts (item i is (1700000000 + (i*2654435761 mod N),
// SHA-256("bench/" + i)), the same ones on one side only) and print one JSON line per storage:
// {"storage":"BTreeMem","runs":[{"buildMs","reconcileMs","roundTrips","up","down","have","need"}]}
// where buildMs covers inserting and sealing both sides and reconcileMs the client's and the
// server's calls together.
import { execFileSync } from 'node:child_process';

export interface ReferenceRun {
  buildMs: number;
  reconcileMs: number;
  roundTrips: number;
  up: number;
  down: number;
  have: number;
  need: number;
}

/** Each storage's runs, or undefined when NEGENTROPY_REFERENCE is not set. */
export function runReference(
  n: number,
  differ: number,
  runs: number,
): Map<string, ReferenceRun[]> | undefined {
  const binary = process.env.NEGENTROPY_REFERENCE;
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
      throw new Error(`NEGENTROPY_REFERENCE printed an unexpected line: ${line.slice(0, 200)}`);
    results.set(parsed.storage, parsed.runs);
  }
  return results;
}
