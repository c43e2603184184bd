import { MincaError } from '@minca/core';

/** An XML element: its local name (namespace prefix dropped), child elements and text. */
export interface XmlElement {
  name: string;
  children: XmlElement[];
  /** The element's own character data, entities decoded, CDATA included. */
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?$/;

/**
 * Parses a small XML document, as S3 answers in, into a tree, strictly: tags must nest, an
 * unknown entity or a `<!DOCTYPE>` (entity expansion) is an error. Attributes are skipped.
 * Throws `MincaError('malformed')`.
 */
export function parseXml(source: string): XmlElement {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let i = 0;
  const fail = (why: string): never => {
    throw new MincaError('malformed', `malformed XML: ${why}`);
  };

  while (i < source.length) {
    const lt = source.indexOf('<', i);
    const textEnd = lt === -1 ? source.length : lt;
    if (textEnd > i) {
      const text = source.slice(i, textEnd);
      const open = stack.at(-1);
      if (open) open.text += decodeEntities(text, fail);
      else if (text.trim() !== '') fail('text outside the root element');
    }
    if (lt === -1) break;

    if (source.startsWith('<?', lt)) {
      const end = source.indexOf('?>', lt + 2);
      if (end === -1) fail('unterminated processing instruction');
      i = end + 2;
    } else if (source.startsWith('<!--', lt)) {
      const end = source.indexOf('-->', lt + 4);
      if (end === -1) fail('unterminated comment');
      i = end + 3;
    } else if (source.startsWith('<![CDATA[', lt)) {
      const end = source.indexOf(']]>', lt + 9);
      const open = stack.at(-1);
      if (end === -1 || !open) fail('misplaced or unterminated CDATA');
      open!.text += source.slice(lt + 9, end);
      i = end + 3;
    } else if (source.startsWith('<!', lt)) {
      fail('declarations are not accepted');
    } else if (source.startsWith('</', lt)) {
      const end = source.indexOf('>', lt);
      if (end === -1) fail('unterminated end tag');
      const name = source.slice(lt + 2, end).trim();
      const open = stack.pop();
      if (!open || localName(name) !== open.name) fail(`unexpected </${name.slice(0, 40)}>`);
      i = end + 1;
    } else {
      const end = tagEnd(source, lt + 1);
      if (end === -1) fail('unterminated start tag');
      const selfClosing = source[end - 1] === '/';
      const inner = source.slice(lt + 1, selfClosing ? end - 1 : end);
      const name = inner.match(/^[^\s/>]+/)?.[0] ?? '';
      if (!NAME.test(name)) fail(`bad element name ${JSON.stringify(name.slice(0, 40))}`);
      const element: XmlElement = { name: localName(name), children: [], text: '' };
      const parent = stack.at(-1);
      if (parent) parent.children.push(element);
      else if (root) fail('more than one root element');
      else root = element;
      if (!selfClosing) stack.push(element);
      i = end + 1;
    }
  }
  if (!root) fail('no root element');
  if (stack.length) fail(`<${stack.at(-1)!.name}> is not closed`);
  return root!;
}

/** The index of the `>` closing a start tag begun before `from`, skipping quoted values. */
function tagEnd(source: string, from: number): number {
  let quote = '';
  for (let i = from; i < source.length; i++) {
    const c = source[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '>') {
      return i;
    } else if (c === '<') {
      return -1;
    }
  }
  return -1;
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

function decodeEntities(text: string, fail: (why: string) => never): string {
  if (!text.includes('&')) return text;
  return text.replace(/&([^;&\s]{0,12});?/g, (match, body: string) => {
    if (!match.endsWith(';')) fail('unterminated entity');
    const named = NAMED_ENTITIES[body];
    if (named !== undefined) return named;
    const numeric = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/.exec(body);
    if (numeric) {
      const code = numeric[1] !== undefined ? parseInt(numeric[1], 16) : Number(numeric[2]);
      if (code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)) {
        return String.fromCodePoint(code);
      }
    }
    return fail(`unknown entity &${body.slice(0, 12)};`);
  });
}

/** The first child of `element` named `name`. */
export function child(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c) => c.name === name);
}
