/** A small element builder: `h('button', { type: 'submit' }, 'Post')`. */
type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string | undefined | false>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

/** A labelled text field. */
export function field(
  id: string,
  label: string,
  attrs: Attrs = {},
): [HTMLLabelElement, HTMLInputElement] {
  return [h('label', { for: id }, label), h('input', { id, name: id, type: 'text', ...attrs })];
}

/** A short name for a DID, for when someone has no profile yet. */
export const shortDid = (did: string) => `${did.slice(8, 14)}…${did.slice(-4)}`;
