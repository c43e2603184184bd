/**
 * Agent slots: `minca agent start` gives each session (a script, an assistant) a slot of its
 * own under `<home>/agent/<slot>`: its own key (`key`, 0600), its own stores (`stores/`), and
 * `agent.json`. Commands run with `--agent <slot>` (or `MINCA_AGENT`) sign as the slot's key
 * and write its stores; each such command then syncs the slot with the account's own stores in
 * the same process, so the daemon and peers see what the agent wrote, signed as the agent.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createMemoryTransportPair,
  createNode,
  type MincaNode,
  type Peer,
  SigningKey,
} from '@minca/core';
import { directoryStores } from '@minca/folder';
import { writeFileAtomic } from './account.js';
import { CliError, EXIT } from './cli-error.js';

export interface AgentSlot {
  slot: string;
  did: string;
  label?: string;
  created: number;
}

const SLOT = /^[0-9a-f]{16}$/;

export const agentDir = (home: string) => join(home, 'agent');

export async function createSlot(
  home: string,
  label?: string,
): Promise<{ slot: AgentSlot; key: SigningKey }> {
  const key = SigningKey.generate();
  const slot: AgentSlot = {
    slot: randomBytes(8).toString('hex'),
    did: key.did,
    ...(label ? { label } : {}),
    created: Date.now(),
  };
  const dir = join(agentDir(home), slot.slot);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(join(dir, 'key'), Buffer.from(key.exportSecret()), 0o600);
  await writeFileAtomic(join(dir, 'agent.json'), `${JSON.stringify(slot, null, 2)}\n`, 0o600);
  return { slot, key };
}

export async function loadSlot(
  home: string,
  slot: string,
): Promise<{ slot: AgentSlot; key: SigningKey; dir: string }> {
  if (!SLOT.test(slot))
    throw new CliError(EXIT.usage, `${slot} is not an agent slot: see \`minca agent list\``);
  const dir = join(agentDir(home), slot);
  try {
    const info = JSON.parse(await readFile(join(dir, 'agent.json'), 'utf8')) as AgentSlot;
    const secret = new Uint8Array(await readFile(join(dir, 'key')));
    const key = SigningKey.fromSecret(secret);
    if (key.did !== info.did) throw new Error('the key is not the slot’s');
    return { slot: info, key, dir };
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CliError(
        EXIT.notFound,
        `no agent slot ${slot} in ${agentDir(home)}: see \`minca agent list\``,
      );
    }
    throw new CliError(EXIT.badData, `agent slot ${slot} is damaged: ${(cause as Error).message}`, {
      cause,
    });
  }
}

export async function listSlots(home: string): Promise<AgentSlot[]> {
  const names = await readdir(agentDir(home)).catch(() => [] as string[]);
  const out: AgentSlot[] = [];
  for (const name of names.filter((n) => SLOT.test(n)).sort()) {
    out.push((await loadSlot(home, name)).slot);
  }
  return out;
}

export async function removeSlot(home: string, slot: string): Promise<void> {
  await loadSlot(home, slot);
  await rm(join(agentDir(home), slot), { recursive: true, force: true });
}

/** Opens a slot's node over its own stores. */
export async function openSlotNode(
  home: string,
  slot: string,
): Promise<{ node: MincaNode; close(): Promise<void> }> {
  const { key, dir } = await loadSlot(home, slot);
  const stores = directoryStores(join(dir, 'stores'));
  const node = await createNode({ stores, key });
  return {
    node,
    async close() {
      await node.close();
      await stores.close?.();
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Syncs two nodes in this process until every space they share is level (bounded). */
export async function syncInProcess(a: MincaNode, b: MincaNode, timeoutMs = 30_000): Promise<void> {
  const [ta, tb] = createMemoryTransportPair();
  const pa: Peer = a.connect(ta);
  const pb: Peer = b.connect(tb);
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  try {
    while (Date.now() < deadline) {
      const ready = pa.did !== undefined && pb.did !== undefined;
      const states = [
        ...pa.spaces().map((s) => pa.status(s)),
        ...pb.spaces().map((s) => pb.status(s)),
      ];
      if (ready && states.every((s) => s?.level)) {
        // Level, and nothing new named for a moment: the spaces message came and went.
        if (++quiet >= 3) return;
      } else quiet = 0;
      await sleep(50);
    }
    throw new CliError(EXIT.failed, 'the agent slot did not sync with the account in time');
  } finally {
    pa.close('done');
    pb.close('done');
  }
}
