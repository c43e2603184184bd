/**
 * How a data folder names its files: a reversible, portable encoding of any string key into
 * file and folder names (spec: "File names" in the package README and spec 05 §14).
 *
 * A key is split on `/`; each part becomes one name, or a chain of names when long. A name's
 * body uses only `a-z 0-9 - _`, so no two keys collide on a case-insensitive file system, no
 * Unicode normalisation applies, and a name never holds `.` except before its kind suffix.
 * Copies a sync service makes ("x (conflicted copy).minca", "x.sync-conflict-….minca") then
 * never decode, and listing skips them.
 */

/** The suffix of a file holding a value: the last part of a key. */
export const FILE_SUFFIX = '.minca';
/** The suffix of a folder continuing a part too long for one name. */
export const MORE_SUFFIX = '.more';
/**
 * The longest body of one name. With `.minca` and a `.<uuid>.tmp` temp suffix a name stays
 * under 255 bytes, the limit of ext4, APFS and NTFS.
 */
export const MAX_BODY = 160;

// Windows refuses these as a name's stem in any case, with or without an extension.
const RESERVED = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const LITERAL = /^[a-z0-9-]$/;

function hexEscape(unit: number): string {
  return `_-${unit.toString(16).padStart(4, '0')}`;
}

/** The tokens of one part: a literal, `_` + letter for an upper-case letter, or `_-hhhh`. */
function tokens(part: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < part.length; i++) {
    const ch = part[i]!;
    const unit = part.charCodeAt(i);
    if (LITERAL.test(ch)) out.push(ch);
    else if (unit >= 0x41 && unit <= 0x5a) out.push(`_${ch.toLowerCase()}`);
    else out.push(hexEscape(unit));
  }
  return out;
}

/** A body the reserved-name rule leaves alone: its first literal becomes `_-hhhh`. */
function unreserve(body: string): string {
  return RESERVED.test(body) ? hexEscape(body.charCodeAt(0)) + body.slice(1) : body;
}

/**
 * The bodies one key part is written as: one, or several when its encoding is over
 * {@link MAX_BODY} (packed greedily, never splitting a token). The empty part is `_`.
 */
export function encodePart(part: string): string[] {
  if (part.length === 0) return ['_'];
  const pieces: string[] = [];
  let piece = '';
  for (const token of tokens(part)) {
    if (piece.length + token.length > MAX_BODY) {
      pieces.push(piece);
      piece = '';
    }
    piece += token;
  }
  pieces.push(piece);
  return pieces.map(unreserve);
}

/** The text of one body, or `undefined` when it is not a body this encoding writes. */
export function decodeBody(body: string): string | undefined {
  if (body === '_') return '';
  let out = '';
  for (let i = 0; i < body.length; ) {
    const ch = body[i]!;
    if (LITERAL.test(ch)) {
      out += ch;
      i++;
    } else if (ch !== '_') {
      return undefined;
    } else if (body[i + 1] !== '-') {
      const letter = body[i + 1];
      if (letter === undefined || letter < 'a' || letter > 'z') return undefined;
      out += letter.toUpperCase();
      i += 2;
    } else {
      const hex = body.slice(i + 2, i + 6);
      if (!/^[0-9a-f]{4}$/.test(hex)) return undefined;
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 6;
    }
  }
  return out;
}

/** What one name in a folder is, by its suffix. */
export type NameKind = 'folder' | 'more' | 'file';

/** A name split into its body and kind, or `undefined` for a name this encoding never writes. */
export function parseName(name: string): { body: string; kind: NameKind } | undefined {
  const dot = name.indexOf('.');
  if (dot === -1) return name.length > 0 ? { body: name, kind: 'folder' } : undefined;
  const body = name.slice(0, dot);
  const suffix = name.slice(dot);
  if (body.length === 0) return undefined;
  if (suffix === FILE_SUFFIX) return { body, kind: 'file' };
  if (suffix === MORE_SUFFIX) return { body, kind: 'more' };
  return undefined;
}

/**
 * The path of names a key is kept under: every part a folder (a long one a chain of `.more`
 * folders), the last part a `.minca` file.
 */
export function keyPath(key: string): string[] {
  const parts = key.split('/');
  const names: string[] = [];
  parts.forEach((part, i) => {
    const pieces = encodePart(part);
    const last = pieces.length - 1;
    pieces.forEach((piece, j) => {
      if (j < last) names.push(piece + MORE_SUFFIX);
      else names.push(i === parts.length - 1 ? piece + FILE_SUFFIX : piece);
    });
  });
  return names;
}

/** The folder names a store path (`/`-separated parts) is kept under. */
export function folderPath(path: string): string[] {
  return path.split('/').flatMap((part) => {
    const pieces = encodePart(part);
    return pieces.map((piece, j) => (j < pieces.length - 1 ? piece + MORE_SUFFIX : piece));
  });
}

/** True when `pieces` are exactly what {@link encodePart} writes for `part`. */
export function isCanonical(part: string, pieces: readonly string[]): boolean {
  const expected = encodePart(part);
  return expected.length === pieces.length && expected.every((piece, i) => piece === pieces[i]);
}
