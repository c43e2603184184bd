/**
 * A subscription host's decisions at scale (spec 06 §2, §3): a host store on a real SQLite file
 * with many subscriptions, one account each, and as many spaces held, one each; then the time
 * the policy takes to judge a batch of versions offered for one of them, as a host does for
 * every batch a client sends. Each decision reads the subscriptions' change mark, and finds the
 * account's subscriptions and spaces without going over every account's.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHostStores } from '../host/host-node.js';
import { SubscriptionPolicy } from '../host/subscription-policy.js';

export interface PolicyLoadOptions {
  /** Accounts, each with one subscription and one space held. */
  accounts: number;
  /** Decisions timed. */
  decisions: number;
}

export interface PolicyLoadResult {
  /** Each decision's time, ms, in order. */
  decisionMs: number[];
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A DID of the shape an account has: the policy only compares them. */
const accountDid = () =>
  `did:key:z${Array.from(randomBytes(46), (b) => BASE58[b % BASE58.length]).join('')}`;

export async function runPolicyLoad(options: PolicyLoadOptions): Promise<PolicyLoadResult> {
  const dir = await mkdtemp(join(tmpdir(), 'minca-policy-load-'));
  const { db, subscriptions } = await openHostStores(dir);
  try {
    const accounts = Array.from({ length: options.accounts }, accountDid);
    for (const account of accounts)
      await subscriptions.add({ account, spaces: 10, bytes: 1_000_000_000 });
    const policy = new SubscriptionPolicy(subscriptions);
    for (const [i, account] of accounts.entries()) {
      const refused = await policy.acceptSpace({ space: `space${i}`, peer: account, access: '' });
      if (refused) throw new Error(`space ${i} refused: ${refused}`);
    }
    const decisionMs: number[] = [];
    for (let d = 0; d < options.decisions; d++) {
      const i = (d * 7919) % accounts.length;
      const start = performance.now();
      const refused = await policy.acceptData({
        space: `space${i}`,
        peer: accounts[i]!,
        versions: 10,
        bytes: 10_000,
        held: { versions: 0, bytes: 0 },
      });
      decisionMs.push(performance.now() - start);
      if (refused) throw new Error(`a batch refused: ${refused}`);
    }
    return { decisionMs };
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
