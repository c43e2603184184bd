/** `minca space create|list|invite|join|status`. */
import type { Role } from '@minca/core';
import { CliError, EXIT } from '../cli-error.js';
import { type Context, withNode } from '../context.js';
import { linkTo } from '../links.js';
import { table } from '../output.js';
import { timeoutOf } from './sync.js';

const WRITES = { writes: true };

export async function spaceCreate(context: Context): Promise<void> {
  const info = await withNode(context, ({ node }) => node.spaces.create(), WRITES);
  context.out.result(info, () => info.id);
}

export async function spaceList(context: Context): Promise<void> {
  const rows = await withNode(context, async ({ node }) => {
    const out = [];
    for (const id of await node.spaces.list()) {
      const s = await node.spaces.status(id);
      out.push({
        id,
        owner: s.owner,
        mine: s.owner === node.did,
        versions: s.versions,
        fingerprint: s.fingerprint,
      });
    }
    return out;
  });
  context.out.result(rows, () =>
    rows.length === 0
      ? 'no spaces yet: `minca space create`, or `minca space join <code>`'
      : table(
          ['space', 'owner', 'versions', 'fingerprint'],
          rows.map((r) => [r.id, r.mine ? 'me' : r.owner, r.versions, r.fingerprint.slice(0, 16)]),
        ),
  );
}

const ROLES = ['reader', 'writer'];

export async function spaceInvite(
  context: Context,
  space: string,
  options: { role?: string },
): Promise<void> {
  const role = options.role ?? 'writer';
  if (!ROLES.includes(role)) {
    throw new CliError(EXIT.usage, `--role is one of ${ROLES.join(', ')}, not ${role}`);
  }
  const code = await withNode(
    context,
    ({ node }) => node.spaces.invite(space, { role: role as Role }),
    WRITES,
  );
  if (!context.out.json) {
    context.out.note(
      'This code holds the space key: hand it to one person, over a channel you trust.',
    );
  }
  context.out.result({ space, role, code }, () => code);
}

export async function spaceJoin(context: Context, code: string): Promise<void> {
  const info = await withNode(context, ({ node }) => node.spaces.join(code.trim()), WRITES);
  if (!context.out.json)
    context.out.note('Joined. Sync with a peer to get its records: `minca sync <url>`.');
  context.out.result(info, () => info.id);
}

export async function spaceStatus(context: Context, space: string): Promise<void> {
  const status = await withNode(context, async ({ node }) => {
    const s = await node.spaces.status(space);
    return { ...s, invites: await node.spaces.invites(space) };
  });
  context.out.result(status, () => {
    const lines = table(
      ['', ''],
      [
        ['space', status.id],
        ['owner', status.owner],
        ['fingerprint', status.fingerprint],
        ['versions', status.versions],
        ['collections', status.collections.join(', ') || '-'],
        ['unused invites', status.invites.length],
        ['invites used twice', status.reusedInvites.length || 'none'],
        ['problems', status.problems.length === 0 ? 'none' : status.problems.join('; ')],
      ],
    )
      .split('\n')
      .slice(1);
    for (const reuse of status.reusedInvites) {
      lines.push(
        '',
        `invite ${reuse.invite} was accepted by ${reuse.accounts.length} accounts (a forwarded code?):`,
        ...reuse.accounts.map((did) => `  ${did}`),
        'each keeps its role; remove one with `minca space remove-member <space> <did>`',
      );
    }
    return lines.join('\n');
  });
}

/** Takes account `did`'s role away from now on, and changes the space's key. Owner only. */
export async function spaceRemoveMember(
  context: Context,
  space: string,
  did: string,
): Promise<void> {
  if (!/^did:key:z[1-9A-HJ-NP-Za-km-z]+$/.test(did)) {
    throw new CliError(EXIT.usage, `${did} is not a DID (did:key:z…): see \`minca space status\``);
  }
  await withNode(context, ({ node }) => node.spaces.removeMember(space, did), WRITES);
  if (!context.out.json) context.out.note('Sync with your peers or host so members learn of it.');
  context.out.result(
    { space, removed: did },
    () => `${did} has no role in ${space} from now on; the space has a new key`,
  );
}

/**
 * Lets a host or carrier hold the space without its key. `holder` is its DID, or its URL,
 * which is asked for its DID.
 */
export async function spaceAllow(
  context: Context,
  space: string,
  holder: string,
  options: { carrier?: boolean; timeout?: string },
): Promise<void> {
  const kind = options.carrier ? 'carrier' : 'host';
  const result = await withNode(
    context,
    async ({ node }) => {
      let did = holder;
      if (/^wss?:\/\//.test(holder)) {
        const link = linkTo(node, holder);
        try {
          const deadline = Date.now() + timeoutOf(context, options.timeout);
          while (!link.peer()?.did) {
            if (Date.now() > deadline) {
              throw new CliError(
                EXIT.unavailable,
                `could not reach ${holder} (${link.lastError() ?? 'no answer'}): check the URL, or give the holder's DID`,
              );
            }
            await new Promise((r) => setTimeout(r, 50));
          }
          did = link.peer()!.did!;
        } finally {
          link.close();
        }
      } else if (!/^did:key:z[1-9A-HJ-NP-Za-km-z]+$/.test(holder)) {
        throw new CliError(EXIT.usage, `${holder} is neither a DID (did:key:z…) nor a ws:// URL`);
      }
      await node.spaces.allowHolder(space, did, kind);
      return { space, holder: did, kind };
    },
    WRITES,
  );
  if (!context.out.json) context.out.note(`Now sync with it: \`minca sync <its url>\`.`);
  context.out.result(result, () => `${result.kind} ${result.holder} may hold ${space}`);
}
