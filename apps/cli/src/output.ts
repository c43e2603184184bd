/**
 * What a command prints: JSON for scripts with `--json`, tables for people otherwise. Results go
 * to stdout; notes, progress and errors to stderr, so stdout stays parseable.
 */

export interface Output {
  readonly json: boolean;
  /** Prints a result: `value` as JSON, or `human()` as text. */
  result(value: unknown, human: () => string): void;
  /** A note for people on stderr (never in `--json` output). */
  note(text: string): void;
}

export function createOutput(
  json: boolean,
  stdout: NodeJS.WritableStream = process.stdout,
  stderr: NodeJS.WritableStream = process.stderr,
): Output {
  return {
    json,
    result(value, human) {
      const text = json ? JSON.stringify(value, replacer) : human();
      if (text !== '') stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    note(text) {
      stderr.write(`${text}\n`);
    },
  };
}

/** Bytes as hex in JSON, never as a map of indexes. */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  return value;
}

/** A table with a header row, columns padded to their widest cell. */
export function table(header: string[], rows: Array<Array<string | number | boolean>>): string {
  if (rows.length === 0) return '';
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells
    .map((row) =>
      row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '),
    )
    .join('\n');
}

/** Sizes for people: 10.0 MiB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'unlimited';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}
