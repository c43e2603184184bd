/**
 * `minca agent start|list|end`: a slot per session, with its own stores and its own writer key,
 * certified by this device for the spaces chosen. Run commands as it with `--agent <slot>` or
 * `MINCA_AGENT=<slot>`. Ending a slot revokes its key (the account's root signs that).
 */
import { issueRevocation } from '@minca/core';
import { loadAccount } from '../account.js';
import {
  createSlot,
  listSlots,
  loadSlot,
  openSlotNode,
  removeSlot,
  syncInProcess,
} from '../agent-slot.js';
import { CliError, EXIT } from '../cli-error.js';
import { type Context, withNode } from '../context.js';
import { openIdentity, rootKey } from '../identity.js';
import { table } from '../output.js';

export async function agentStart(
  context: Context,
  options: { label?: string; role?: string; space?: string[] },
): Promise<void> {
  const role = options.role ?? 'writer';
  if (role !== 'writer' && role !== 'reader')
    throw new CliError(EXIT.usage, `--role is reader or writer, not ${options.role}`);
  const { agent: _agent, ...asAccount } = context;
  const result = await withNode(
    asAccount,
    async ({ node, identity }) => {
      const spaces: string[] = [];
      for (const id of options.space?.length ? options.space : await node.spaces.list()) {
        const mine = (await node.spaces.status(id)).owner === node.did;
        // Named spaces are the person's choice; by default, the spaces the account owns.
        if (mine || options.space?.length) spaces.push(id);
      }
      const { slot } = await createSlot(identity, [...new Set(spaces)].sort(), options.label, role);
      const agent = await openSlotNode(identity, slot.slot);
      try {
        // The agent writes for this account: it needs the spaces' keys, not a role.
        for (const id of slot.spaces)
          await agent.node.spaces.join(await node.spaces.share(id, node.did));
        await syncInProcess(node, agent.node);
      } finally {
        await agent.close();
      }
      return slot;
    },
    { writes: true },
  );
  context.out.result(result, () =>
    [
      `agent ${result.slot} (${result.did}), writing for this account in ${result.spaces.length} space(s)`,
      `run commands as it with: export MINCA_AGENT=${result.slot}`,
    ].join('\n'),
  );
}

export async function agentList(context: Context): Promise<void> {
  const identity = await openIdentity(await loadAccount(context.home), context.env);
  const slots = await listSlots(identity);
  context.out.result(slots, () =>
    slots.length === 0
      ? 'no agent slots: `minca agent start`'
      : table(
          ['slot', 'did', 'label', 'spaces', 'started'],
          slots.map((s) => [
            s.slot,
            s.did,
            s.label ?? '-',
            s.spaces.length,
            new Date(s.created).toISOString(),
          ]),
        ),
  );
}

export async function agentEnd(context: Context, slot: string): Promise<void> {
  const { agent: _agent, ...asAccount } = context;
  const identity = await openIdentity(await loadAccount(context.home), context.env);
  const { slot: info } = await loadSlot(identity, slot);
  // The root signs the revocation: get it first, so a missing passphrase changes nothing.
  const root = await rootKey(identity, context.env, 'ending an agent');
  await withNode(
    asAccount,
    async ({ node }) => {
      // One last sync, so nothing the agent wrote stays only in its slot.
      const agent = await openSlotNode(identity, slot);
      try {
        await syncInProcess(node, agent.node);
      } finally {
        await agent.close();
      }
      const revocation = await issueRevocation(root, info.did, Date.now());
      await node.spaces.revoke(revocation.bytes);
    },
    { writes: true },
  );
  await removeSlot(identity, slot);
  context.out.result(
    { ended: slot, revoked: info.did },
    () => `ended agent ${slot}: what it wrote is in the account, and its key is revoked`,
  );
}
