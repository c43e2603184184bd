import { describe, expect, it } from 'vitest';
import { FILE_SUFFIX, isCanonical, parseName } from '../src/file-names.ts';
import { decodeBody, encodePart, keyPath } from '../src/node.ts';

/** A deterministic generator of awkward strings: mixed case, unicode, surrogates, \uffff. */
function* awkwardStrings(count: number): Generator<string> {
  let x = 0x2545f491;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  const alphabet = ['a', 'Z', 'z', '0', '-', '_', '.', ' ', ':', '~', 'é', 'É', '日', '\uffff'];
  for (let i = 0; i < count; i++) {
    let s = '';
    const length = Math.floor(next() * 40);
    for (let j = 0; j < length; j++) {
      const r = next();
      if (r < 0.7) s += alphabet[Math.floor(next() * alphabet.length)];
      else if (r < 0.8) s += String.fromCharCode(0xd800 + Math.floor(next() * 0x800));
      else s += String.fromCharCode(Math.floor(next() * 0x10000));
    }
    yield s;
  }
}

function decodeChain(pieces: string[]): string {
  return pieces.map((piece) => decodeBody(piece)!).join('');
}

describe('file names', () => {
  it('round trips any string, in names of a-z 0-9 - _ only', () => {
    for (const part of [...awkwardStrings(2000), '', 'CON', 'con', 'Aux', 'a'.repeat(500)]) {
      const pieces = encodePart(part);
      for (const piece of pieces) expect(piece).toMatch(/^[a-z0-9_-]+$/);
      expect(decodeChain(pieces)).toBe(part);
      expect(isCanonical(part, pieces)).toBe(true);
    }
  });

  it('keeps keys that differ only in case apart on a case-insensitive file system', () => {
    const keys = ['abc', 'ABC', 'Abc', 'aBc', 'é', 'É', 'e\u0301'];
    const names = keys.map((key) => keyPath(key).join('/').toLowerCase());
    expect(new Set(names).size).toBe(keys.length);
  });

  it('never writes a Windows reserved name', () => {
    for (const name of ['con', 'prn', 'aux', 'nul', 'com1', 'lpt9', 'CON', 'Nul']) {
      const [piece] = encodePart(name);
      expect(piece!.toLowerCase()).not.toMatch(/^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/);
      expect(decodeBody(piece!)).toBe(name);
    }
    expect(encodePart('con')).toEqual(['_-0063on']);
    expect(encodePart('console')).toEqual(['console']);
  });

  it('splits a long part into names under 255 bytes with their temp suffix', () => {
    const part = '日本語'.repeat(100);
    const path = keyPath(`x/${part}`);
    expect(path.length).toBeGreaterThan(3);
    for (const name of path)
      expect(`${name}.00000000-0000-7000-8000-000000000000.tmp`.length).toBeLessThan(255);
    expect(path.at(-1)!.endsWith(FILE_SUFFIX)).toBe(true);
  });

  it('reads the names it writes, and nothing a sync service or person adds', () => {
    expect(keyPath('spaces/Ab c/x.y')).toEqual(['spaces', '_ab_-0020c', 'x_-002ey.minca']);
    expect(parseName('x_-002ey.minca')).toEqual({ body: 'x_-002ey', kind: 'file' });
    for (const foreign of [
      'seg (conflicted copy 2026-12-02).minca',
      'seg (Conflict 2026-12-02 14.30).minca',
      'seg.sync-conflict-20261202-143000-7ERY2XS.minca',
      'seg 2.minca',
      '.DS_Store',
      'desktop.ini',
      'Thumbs.db',
      'seg.minca.0f8fad5b-d9cb-469f-a165-70867728950e.tmp',
      'seg.minca~',
    ]) {
      const parsed = parseName(foreign);
      expect(parsed === undefined || decodeBody(parsed.body) === undefined, foreign).toBe(true);
    }
    for (const bad of ['A', '__', '_A', '_-00e', '_-00E9', 'a.b', 'a b']) {
      expect(decodeBody(bad), bad).toBeUndefined();
    }
    // Decodes, but is not how the encoding writes 'a', so a listing skips it.
    expect(isCanonical('a', ['_-0061'])).toBe(false);
  });
});
