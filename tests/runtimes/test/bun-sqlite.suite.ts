/** Run by `bun test` (@oven/bun-linux-x64), through test/runtimes.test.ts: `bun:sqlite`. */
import { Database } from 'bun:sqlite';
import { describe, it } from 'vitest';
import { pageExample } from './example.ts';
import { inTempFolder, runDriverSuites } from './suite.ts';

runDriverSuites('bun:sqlite', (file) => new Database(file));

describe("the page's example on Bun's bun:sqlite", () => {
  it('keeps records in node.sqlite across a restart', () =>
    inTempFolder(() => pageExample(() => new Database('node.sqlite'))));
});
