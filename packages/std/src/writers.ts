/**
 * Who wrote a record, as a person: a version's author is a writer key (spec 05 §6), tied to its
 * account by the certificates of its `sys.writer` record, which syncs in the space. Names,
 * profiles and "by Ada" belong to accounts, so an app shows the account.
 */
import { type BodyValue, type MincaNode, verifyChain } from '@minca/core';

const WRITERS = 'sys.writer';
/** Chains verified, by the `sys.writer` version that carries them: a version never changes. */
const verified = new Map<string, string | null>();
const MAX_VERIFIED = 4096;

type Records = Pick<MincaNode['records'], 'list'>;

function chainOf(body: BodyValue): Uint8Array[] | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  if (body instanceof Uint8Array) return undefined;
  const chain = (body as { [key: string]: BodyValue }).chain;
  if (!Array.isArray(chain) || !chain.every((c) => c instanceof Uint8Array)) return undefined;
  return chain as Uint8Array[];
}

/**
 * The account each writer of `space` writes for, by writer DID, from the `sys.writer` records
 * that stand there (each chain verified). A writer with no record is its own account:
 * `accountOf(accounts, author)`.
 */
export async function writerAccounts(
  node: { records: Records },
  space: string,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const record of await node.records.list(space, WRITERS)) {
    let account = verified.get(record.version);
    if (account === undefined) {
      const chain = chainOf(record.body);
      const identity = chain
        ? await verifyChain(record.author, chain).catch(() => undefined)
        : undefined;
      account = identity?.account ?? null;
      if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value!);
      verified.set(record.version, account);
    }
    // A record counts for its own author only: its id is the writer's DID.
    if (account && `did:key:${record.id}` === record.author) out.set(record.author, account);
  }
  return out;
}

/** The account `author` (a version's writer) writes for, by {@link writerAccounts}. */
export const accountOf = (accounts: ReadonlyMap<string, string>, author: string): string =>
  accounts.get(author) ?? author;
