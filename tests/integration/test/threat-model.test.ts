// docs/THREAT_MODEL.md names, for each row, the tests that defend it: each named file must hold
// a test of that name, so the document can't point at a test that is gone or renamed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const doc = readFileSync(`${root}docs/THREAT_MODEL.md`, 'utf8');

/** Each `path` and the "names" quoted after it, up to the next path, in every line. */
function citations(text: string): Array<{ file: string; name: string }> {
  const out: Array<{ file: string; name: string }> = [];
  for (const line of text.split('\n')) {
    const parts = line.split(/`([^`]+\.test\.ts)`/);
    for (let i = 1; i < parts.length; i += 2) {
      const file = parts[i]!;
      for (const [, name] of (parts[i + 1] ?? '').matchAll(/"([^"]+)"/g))
        out.push({ file, name: name! });
    }
  }
  return out;
}

/** A test name as a pattern: `…` and template parts (`${x}`) in the source match anything. */
function named(source: string, name: string): boolean {
  const pieces = name.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(pieces.join('.*'));
  // The source's own template parts, such as ${ROUNDS}, read as the numbers the doc gives.
  const titles = [...source.matchAll(/\bit(?:\.fails)?\(\s*(['"`])(.*?)\1/gs)].map((m) => m[2]!);
  return titles.some((title) => {
    if (pattern.test(title)) return true;
    const loose = new RegExp(
      `^${title
        .split(/\$\{[^}]*\}/)
        .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return loose.test(name.replace(/…/g, 'X'));
  });
}

describe('the threat model', () => {
  it('names only tests that exist', () => {
    const cited = citations(doc);
    expect(cited.length).toBeGreaterThan(40);
    const missing = cited.filter(({ file, name }) => {
      const source = readFileSync(`${root}${file}`, 'utf8');
      return !named(source, name);
    });
    expect(missing).toEqual([]);
  });
});
