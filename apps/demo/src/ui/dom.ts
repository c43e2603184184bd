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

/** A page's heading, focused when the page shows so a screen reader starts there. */
export const heading = (text: string, id: string) =>
  h('h2', { id, tabindex: -1, class: 'page-title' }, text);

/** A person's initial on a coloured disc, for someone without an avatar. */
export function initials(name: string, did: string): HTMLElement {
  let hue = 0;
  for (const c of did) hue = (hue * 31 + c.charCodeAt(0)) % 360;
  return h(
    'span',
    { class: 'avatar initials', style: `--hue: ${hue}`, 'aria-hidden': 'true' },
    (name.trim()[0] ?? '?').toUpperCase(),
  );
}

/** "3 posts", "1 post". */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A short, friendly time: "just now", "5 min ago", or the date. */
export function when(ms: number, now = Date.now()): string {
  const s = Math.round((now - ms) / 1000);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return new Date(ms).toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
}
