/**
 * Agent slots: `minca agent start` gives each session (a script, an assistant) a slot of its
 * own: `agent/<slot>/` with `agent.json` and its own stores (`stores/`), in the home (in this
 * device's local state for a data folder, which holds nothing of one device), and its own
 * lasting writer key, certified by this device for the spaces chosen, in
 * `<local>/writer-keys/agent-<slot>.key`. Commands run with `--agent <slot>` (or `MINCA_AGENT`)
 * sign with the slot's key and write its stores; each such command then syncs the slot with the
 * account's own stores in the same process, so the daemon and peers see what the agent wrote.
 * `minca agent end` revokes the slot's key, so nothing it signs later stands.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createMemoryTransportPair, createNode, type MincaNode, type Peer } from '@minca/core';
import { directoryStores } from '@minca/folder';
import { CliError, EXIT } from './cli-error.js';
import { type CertifiedKey, readWriter, removeWriter, writerKey } from './device-state.js';
import { chainOf, type DeviceIdentity } from './identity.js';
import { PLATFORM_CRYPTO } from './platform.js';
import { privateDir, writeFileAtomic } from './secure-files.js';

export interface AgentSlot {
  slot: string;
  /** The slot's writer key's DID: the author of what it writes. */
  did: string;
  label?: string;
  /** The spaces its key is certified for. */
  spaces: string[];
  /** `reader`: its key is certified only to read; what it writes never stands. */
  role?: 'writer' | 'reader';
  created: number;
}

const SLOT = /^[0-9a-f]{16}$/;

/** Where the slots are: the home's `agent/`, or this device's for a data folder. */
export const agentDir = ({ account, paths }: DeviceIdentity) =>
  join(account.folder ? paths.account : account.home, 'agent');

const writerName = (slot: string) => `agent-${slot}`;

/** A new slot, its writer key certified by this device for `spaces` (at least one). */
export async function createSlot(
  identity: DeviceIdentity,
  spaces: string[],
  label?: string,
  role: 'writer' | 'reader' = 'writer',
): Promise<{ slot: AgentSlot; writer: CertifiedKey }> {
  if (spaces.length === 0) {
    throw new CliError(
      EXIT.usage,
      'no space to give the agent: create one first, or name one with --space',
    );
  }
  const id = randomBytes(8).toString('hex');
  const writer = await writerKey(identity.paths, writerName(id), identity.device, {
    label: `agent ${label ?? id}`,
    spaces,
    reader: role === 'reader',
  });
  const slot: AgentSlot = {
    slot: id,
    did: writer.key.did,
    ...(label ? { label } : {}),
    spaces: writer.cert.spaces ?? [],
    role,
    created: Date.now(),
  };
  const dir = join(agentDir(identity), id);
  await privateDir(dir);
  await writeFileAtomic(join(dir, 'agent.json'), `${JSON.stringify(slot, null, 2)}\n`, 0o600);
  return { slot, writer };
}

export async function loadSlot(
  identity: DeviceIdentity,
  slot: string,
): Promise<{ slot: AgentSlot; writer: CertifiedKey; dir: string }> {
  if (!SLOT.test(slot))
    throw new CliError(EXIT.usage, `${slot} is not an agent slot: see \`minca agent list\``);
  const dir = join(agentDir(identity), slot);
  let info: AgentSlot;
  try {
    info = JSON.parse(await readFile(join(dir, 'agent.json'), 'utf8')) as AgentSlot;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CliError(
        EXIT.notFound,
        `no agent slot ${slot} in ${agentDir(identity)}: see \`minca agent list\``,
      );
    }
    throw new CliError(EXIT.badData, `agent slot ${slot} is damaged`, { cause });
  }
  const writer = await readWriter(identity.paths, writerName(slot), identity.device);
  if (!writer || writer.key.did !== info.did)
    throw new CliError(EXIT.badData, `agent slot ${slot} has lost its writer key`);
  return { slot: info, writer, dir };
}

export async function listSlots(identity: DeviceIdentity): Promise<AgentSlot[]> {
  const names = await readdir(agentDir(identity)).catch(() => [] as string[]);
  const out: AgentSlot[] = [];
  for (const name of names.filter((n) => SLOT.test(n)).sort()) {
    out.push((await loadSlot(identity, name)).slot);
  }
  return out;
}

/** Removes a slot: its stores and its writer key (revoke the key first). */
export async function removeSlot(identity: DeviceIdentity, slot: string): Promise<void> {
  await loadSlot(identity, slot);
  await rm(join(agentDir(identity), slot), { recursive: true, force: true });
  await removeWriter(identity.paths, writerName(slot));
}

/** Opens a slot's node over its own stores, signing with its writer key. */
export async function openSlotNode(
  identity: DeviceIdentity,
  slot: string,
): Promise<{ node: MincaNode; close(): Promise<void> }> {
  const { writer, dir } = await loadSlot(identity, slot);
  const stores = directoryStores(join(dir, 'stores'));
  const node = await createNode({
    stores,
    key: writer.key,
    certificates: chainOf(identity, writer),
    crypto: PLATFORM_CRYPTO,
  });
  return {
    node,
    async close() {
      await node.close();
      await stores.close?.();
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Syncs two nodes in this process until every space they share is level (bounded). Gives the
 * account `a` sees at the other end: `b`'s account, or `b`'s own writer DID when `a` holds its
 * key revoked (it is then nobody, and nothing is shared).
 */
export async function syncInProcess(
  a: MincaNode,
  b: MincaNode,
  timeoutMs = 30_000,
): Promise<string | undefined> {
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
        if (++quiet >= 3) return pa.did;
      } else quiet = 0;
      await sleep(50);
    }
    throw new CliError(EXIT.failed, 'the agent slot did not sync with the account in time');
  } finally {
    pa.close('done');
    pb.close('done');
  }
}
