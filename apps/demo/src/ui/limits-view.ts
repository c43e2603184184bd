/** The device's file limits, with a control to change them: they apply in every open space. */
import { AHEAD_CHOICES, KEEP_CHOICES, loadLimits, saveLimits } from '../file-limits.js';
import type { NodeClient } from '../node-client.js';
import { h } from './dom.js';

export function limitsSection(account: string, client: NodeClient): HTMLElement {
  const limits = loadLimits(account);
  const status = h('p', { role: 'status', id: 'limits-status' });
  const select = (id: string, choices: Array<[number, string]>, value: number) =>
    h(
      'select',
      {
        id,
        onchange: async () => {
          const next = {
            ahead: Number((document.getElementById('limit-ahead') as HTMLSelectElement).value),
            keep: Number((document.getElementById('limit-keep') as HTMLSelectElement).value),
          };
          saveLimits(account, next);
          await client.call('setFileLimits', next);
          status.textContent = 'Saved for this device.';
        },
      },
      ...choices.map(([bytes, label]) =>
        h('option', { value: String(bytes), selected: bytes === value }, label),
      ),
    );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'limits-title' },
    h('h2', { id: 'limits-title' }, 'Files on this device'),
    h(
      'p',
      { class: 'muted' },
      'How much of the space’s photos and videos this device fetches and keeps. A larger video is fetched as it plays.',
    ),
    h('label', { for: 'limit-ahead' }, 'Fetch ahead, unread'),
    select('limit-ahead', AHEAD_CHOICES, limits.ahead),
    h('label', { for: 'limit-keep' }, 'Keep per space'),
    select('limit-keep', KEEP_CHOICES, limits.keep),
    status,
  );
}
