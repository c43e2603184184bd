// Deep or huge bodies are refused (`invalid_input`, or `too_large` past the size) before any
// recursion: the checks walk a body with a stack of their own, so none reaches the stack's limit.
import { afterEach, describe, expect, it } from 'vitest';
import { assertBody, MAX_BODY_BYTES } from '../src/body.js';
import { isMincaError } from '../src/errors.js';
import { fileIdsIn } from '../src/file-ref.js';
import type { MincaNode } from '../src/node.js';
import { newNode } from './sync-helpers.js';

/** `[[[…1…]]]`, `depth` arrays deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** The message of the MincaError `run` throws with `code`, or what happened instead. */
const thrown = (run: () => unknown, code: 'invalid_input' | 'too_large' = 'invalid_input') => {
  try {
    run();
  } catch (error) {
    return isMincaError(error, code) ? (error as Error).message : String(error);
  }
  return 'no error';
};
const invalid = (run: () => unknown) => thrown(run);

const nodes: MincaNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close();
});

describe('bodies past the bounds', () => {
  it('a body nested 100,000 deep is invalid_input, from the check and from put', async () => {
    const deep = nested(100_000);
    expect(invalid(() => assertBody(deep))).toMatch(/nests deeper than 32/);
    expect(() => fileIdsIn(deep)).not.toThrow();
    const node = await newNode();
    nodes.push(node);
    const space = (await node.spaces.create()).id;
    const put = node.records.put(space, 'app.post', deep as never);
    await expect(put).rejects.toSatisfy((e) => isMincaError(e, 'invalid_input'));
    await expect(put).rejects.toThrow(/nests deeper/);
  });

  it('a body that holds itself is invalid_input, not a hang', async () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    loop.again = loop;
    expect(invalid(() => assertBody(loop))).toMatch(/nests deeper|larger than/);
    expect(fileIdsIn(loop)).toEqual([]);
    const node = await newNode();
    nodes.push(node);
    const space = (await node.spaces.create()).id;
    await expect(node.records.put(space, 'app.post', loop as never)).rejects.toSatisfy((e) =>
      isMincaError(e, 'invalid_input'),
    );
  });

  it('a body of millions of items is too_large once it is past the size, before encoding', () => {
    const wide = new Array(3_000_000).fill(0);
    expect(thrown(() => assertBody(wide), 'too_large')).toMatch(
      new RegExp(`larger than ${MAX_BODY_BYTES} bytes`),
    );
    const longText = { text: 'x'.repeat(MAX_BODY_BYTES + 1) };
    expect(thrown(() => assertBody(longText), 'too_large')).toMatch(
      /body\.text makes the body larger/,
    );
    expect(() => fileIdsIn(wide)).not.toThrow();
  });

  it('names the first fault in reading order, as before', () => {
    expect(invalid(() => assertBody({ a: [1, 2, { b: undefined }], c: Number.NaN }))).toBe(
      'body.a[2] .b is undefined; leave the key out instead',
    );
    expect(invalid(() => assertBody({ a: 1, c: Number.NaN }))).toBe(
      'body.c is not a finite number',
    );
    expect(() =>
      assertBody({ ok: [1, 'two', new Uint8Array(3), { deep: nested(28) }] }),
    ).not.toThrow();
  });

  it('still finds every file a valid body points at, in order', () => {
    const ref = (n: number) => ({
      $file: n.toString(16).padStart(64, '0'),
      key: new Uint8Array(32),
      size: 1,
    });
    expect(fileIdsIn({ a: [ref(1), { b: ref(2) }], c: ref(1), d: [[ref(3)]] })).toEqual([
      ref(1).$file,
      ref(2).$file,
      ref(3).$file,
    ]);
  });
});
