/** A named figure a benchmark reports, such as `records put` = 120,000 `ops/s`. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** What the figure is beside, e.g. "0.82× raw driver". */
  note?: string;
}

/** One benchmark file's default export. */
export interface Benchmark {
  /** Short name, used to pick benchmarks: `pnpm bench negentropy`. */
  name: string;
  run(): Promise<Figure[]>;
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs `fn` `runs` times (after one warm-up) and gives the median wall time in ms. */
export async function medianMs(
  runs: number,
  fn: () => unknown | Promise<unknown>,
): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}
