/**
 * `minca agent start|list|end`: a slot per session, with its own key and stores, granted a role
 * in the account's spaces. Run commands as it with `--agent <slot>` or `MINCA_AGENT=<slot>`.
 */
import type { Role } from '@minca/core';
import { createSlot, listSlots, openSlotNode, removeSlot, syncInProcess } from '../agent-slot.js';
import { CliError, EXIT } from '../cli-error.js';
import { type Context, withNode } from '../context.js';
import { table } from '../output.js';

export async function agentStart(
  context: Context,
  options: { label?: string; role?: string; space?: string[] },
): Promise<void> {
  const role = (options.role ?? 'writer') as Role;
  if (role !== 'writer' && role !== 'reader') {
    throw new CliError(EXIT.usage, `--role is reader or writer, not ${options.role}`);
  }
  const { agent: _agent, ...asAccount } = context;
  const result = await withNode(
    asAccount,
    async ({ node }) => {
      const owned: string[] = [];
      for (const id of options.space?.length ? options.space : await node.spaces.list()) {
        if ((await node.spaces.status(id)).owner === node.did) owned.push(id);
        else if (options.space?.length) {
          throw new CliError(
            EXIT.refused,
            `space ${id} is not this account's: only its owner grants roles`,
          );
        }
      }
      const { slot } = await createSlot(context.home, options.label);
      const agent = await openSlotNode(context.home, slot.slot);
      try {
        for (const id of owned) {
          await node.spaces.setRole(id, slot.did, role);
          await agent.node.spaces.join(await node.spaces.share(id, slot.did));
        }
        await syncInProcess(node, agent.node);
      } finally {
        await agent.close();
      }
      return { ...slot, role, spaces: owned };
    },
    { writes: true },
  );
  context.out.result(result, () =>
    [
      `agent ${result.slot} (${result.did}), ${role} in ${result.spaces.length} space(s)`,
      `run commands as it with: export MINCA_AGENT=${result.slot}`,
    ].join('\n'),
  );
}

export async function agentList(context: Context): Promise<void> {
  const slots = await listSlots(context.home);
  context.out.result(slots, () =>
    slots.length === 0
      ? 'no agent slots: `minca agent start`'
      : table(
          ['slot', 'did', 'label', 'started'],
          slots.map((s) => [s.slot, s.did, s.label ?? '-', new Date(s.created).toISOString()]),
        ),
  );
}

export async function agentEnd(context: Context, slot: string): Promise<void> {
  // One last sync, so nothing the agent wrote stays only in its slot.
  const { agent: _agent, ...asAccount } = context;
  await withNode(
    asAccount,
    async ({ node }) => {
      const agent = await openSlotNode(context.home, slot);
      try {
        await syncInProcess(node, agent.node);
      } finally {
        await agent.close();
      }
    },
    { writes: true },
  );
  await removeSlot(context.home, slot);
  context.out.result({ ended: slot }, () => `ended agent ${slot}; what it wrote is in the account`);
}
