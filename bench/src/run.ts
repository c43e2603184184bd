// The benchmark runner: `pnpm bench [name…]` runs every benchmark in ./benchmarks (or those
// whose name contains one of the words given; a word that is a benchmark's whole name picks that
// one alone, so `sync` is not `resync` too) and prints one table of named figures.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Benchmark, Figure } from './harness.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'benchmarks');
const filters = process.argv.slice(2);
const rows: Array<[string, Figure]> = [];
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => f.slice(0, -3));
/** A word picks the benchmark it names whole, or else every one whose name contains it. */
const picks = (word: string, name: string) =>
  names.includes(word) ? name === word : name.includes(word);

for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.js'))
  .sort()) {
  const bench = (await import(join(dir, file))).default as Benchmark;
  if (filters.length && !filters.some((f) => picks(f, bench.name))) continue;
  process.stderr.write(`running ${bench.name}…\n`);
  for (const figure of await bench.run()) rows.push([bench.name, figure]);
}

const format = (v: number) =>
  v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toPrecision(3).replace(/\.?0+$/, '');
const table = rows.map(([bench, f]) => [bench, f.name, format(f.value), f.unit, f.note ?? '']);
const header = ['benchmark', 'figure', 'median', 'unit', 'beside'];
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
const line = (cells: string[]) =>
  cells.map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of table) console.log(line(row));
